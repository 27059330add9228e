-- The alerts feature's part of migration 015 (its other parts: digests, platform, watches, home).

ALTER TABLE alerts ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alerts a SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = a.channel_id;

ALTER TABLE alert_mutes ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alert_mutes m SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = m.channel_id;

ALTER TABLE alert_groups ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alert_groups g SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = g.channel_id;
