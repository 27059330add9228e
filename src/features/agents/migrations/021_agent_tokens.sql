-- A person's tokens for agents (any MCP client), in one workspace: only a hash of each is kept.
CREATE TABLE agent_tokens (
  id            bigserial   PRIMARY KEY,
  team_id       text        NOT NULL,
  user_id       text        NOT NULL,
  name          text        NOT NULL,
  token_hash    text        NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX agent_tokens_person ON agent_tokens (team_id, user_id);
