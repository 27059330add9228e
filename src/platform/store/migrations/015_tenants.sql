-- Every row that belongs to a workspace carries its team id (each feature's keys include it
-- in its own migration: a Slack Connect channel has one id in every workspace that shares it).
-- Rows written before (one workspace) get '' here and are adopted by that workspace when it
-- next starts with its bot token.

ALTER TABLE digest_runs ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE digest_runs r SET team_id = d.team_id FROM digests d WHERE d.id = r.digest_id;

ALTER TABLE alerts ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alerts a SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = a.channel_id;

ALTER TABLE alert_mutes ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alert_mutes m SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = m.channel_id;

ALTER TABLE alert_groups ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE alert_groups g SET team_id = s.team_id FROM alert_subscriptions s WHERE s.channel_id = g.channel_id;

ALTER TABLE deliveries ADD COLUMN team_id text NOT NULL DEFAULT '';
DROP INDEX deliveries_open_idx;
CREATE INDEX deliveries_open_idx ON deliveries (team_id, channel_id, id) WHERE status IN ('pending', 'sending');

ALTER TABLE query_stash ADD COLUMN team_id text NOT NULL DEFAULT '';

ALTER TABLE home_views ADD COLUMN team_id text NOT NULL DEFAULT '';

CREATE INDEX digests_team_id_idx ON digests (team_id);
CREATE INDEX watches_team_id_idx ON watches (team_id);

-- A workspace's connection to its analytics account (a distributed app; one workspace takes
-- its account from the environment). The key is sealed; its last four characters are what is shown.
CREATE TABLE workspaces (
  team_id        text        PRIMARY KEY,
  enterprise_id  text,
  api_base_url   text        NOT NULL,
  api_key        text        NOT NULL,
  api_key_last4  text        NOT NULL,
  account        text        NOT NULL,  -- a hash of base URL and key: what the trend cache and the threat scan are keyed by
  connected_by   text        NOT NULL,
  connected_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workspaces_account_idx ON workspaces (account);
