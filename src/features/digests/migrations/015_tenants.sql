-- Every row that belongs to a workspace carries its team id (each feature's keys include it
-- in its own migration: a Slack Connect channel has one id in every workspace that shares it).
-- Rows written before (one workspace) get '' here and are adopted by that workspace when it
-- next starts with its bot token.

ALTER TABLE digest_runs ADD COLUMN team_id text NOT NULL DEFAULT '';
UPDATE digest_runs r SET team_id = d.team_id FROM digests d WHERE d.id = r.digest_id;

CREATE INDEX digests_team_id_idx ON digests (team_id);
