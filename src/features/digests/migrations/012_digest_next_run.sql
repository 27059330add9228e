-- One timer for every digest: each active digest keeps the time of its next slot, and the
-- scheduler sleeps until the earliest one. NULL means "not scheduled yet" (a new, edited or
-- resumed digest, and every digest made before this migration): the scheduler fills it in from
-- the cron and zone, which SQL cannot compute.
ALTER TABLE digests ADD COLUMN next_run_at timestamptz;
CREATE INDEX digests_next_run_at_idx ON digests (next_run_at) WHERE NOT paused;
