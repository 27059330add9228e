-- A person's tokens for agents outside Slack (Authorization: Bearer on /mcp): only each token's sha256
-- is kept. team_id, so that a workspace's purge removes them.
CREATE TABLE agent_tokens (
  id            serial      PRIMARY KEY,
  team_id       text        NOT NULL,
  user_id       text        NOT NULL,
  name          text        NOT NULL,
  token_hash    text        NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX agent_tokens_owner_idx ON agent_tokens (team_id, user_id);
