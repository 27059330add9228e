-- A slot's content is fetched under a heartbeat; a run whose heartbeat stops is taken over.
ALTER TABLE digest_runs DROP CONSTRAINT digest_runs_status_check;
ALTER TABLE digest_runs ADD CONSTRAINT digest_runs_status_check
  CHECK (status IN ('claimed', 'queued', 'posted', 'failed', 'missed', 'abandoned'));
ALTER TABLE digest_runs ADD COLUMN heartbeat_at timestamptz;
ALTER TABLE digest_runs ADD COLUMN delivery_id bigint;

-- Slack refused the channel for good (gone, archived, not a member): shown until fixed.
ALTER TABLE digests ADD COLUMN attention text;
