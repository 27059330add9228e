-- The home feature's part of migration 015 (its other parts: digests, platform, alerts, watches).

ALTER TABLE home_views ADD COLUMN team_id text NOT NULL DEFAULT '';
