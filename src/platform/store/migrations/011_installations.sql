-- Bolt's Installation of the app per workspace (team_id), or per organisation for an org-wide
-- install (enterprise_id, is_enterprise_install). Tokens are sealed (platform/secrets.ts:
-- `v1:<key id>:…`), never clear text; the rest of the Installation is in `installation`, without them.
CREATE TABLE installations (
  id                      text        PRIMARY KEY,  -- 'team:<team_id>' or 'enterprise:<enterprise_id>' for an org-wide install
  team_id                 text,                     -- null for an org-wide install
  enterprise_id           text,
  is_enterprise_install   boolean     NOT NULL,
  installer_user_id       text        NOT NULL,     -- whose user token this is, if any
  bot_token               text,                     -- sealed
  bot_refresh_token       text,                     -- sealed; token rotation
  bot_token_expires_at    timestamptz,
  user_token              text,                     -- sealed
  user_refresh_token      text,                     -- sealed
  user_token_expires_at   timestamptz,
  installation            jsonb       NOT NULL,     -- the Installation without its tokens
  installed_at            timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  uninstalled_at          timestamptz,              -- set when the app leaves; settings are kept for a while
  CHECK ((is_enterprise_install AND enterprise_id IS NOT NULL) OR (NOT is_enterprise_install AND team_id IS NOT NULL))
);
CREATE INDEX installations_enterprise_id_idx ON installations (enterprise_id) WHERE enterprise_id IS NOT NULL;
