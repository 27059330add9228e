-- The workspaces Lookout serves under an org-wide install (Enterprise Grid), as Slack's signed
-- requests name them: how a workspace with no install of its own finds its organisation's token,
-- before it has connected its analytics (the connection records the organisation too).
CREATE TABLE org_workspaces (
  team_id text PRIMARY KEY,
  enterprise_id text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);
