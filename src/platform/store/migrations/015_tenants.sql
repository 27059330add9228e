-- The platform's part of migration 015 (its other parts: digests, alerts, watches, home).

ALTER TABLE deliveries ADD COLUMN team_id text NOT NULL DEFAULT '';
DROP INDEX deliveries_open_idx;
CREATE INDEX deliveries_open_idx ON deliveries (team_id, channel_id, id) WHERE status IN ('pending', 'sending');

ALTER TABLE query_stash ADD COLUMN team_id text NOT NULL DEFAULT '';

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
