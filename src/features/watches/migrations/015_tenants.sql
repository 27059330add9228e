-- The watches feature's part of migration 015 (its other parts: digests, platform, alerts, home).

CREATE INDEX watches_team_id_idx ON watches (team_id);
