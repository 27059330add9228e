-- What was seen once and must not be acted on again within a window: a request's signature
-- ('request:…', 5 minutes), an event's id ('event:…', Slack's retries). Kept apart from
-- job_claims' leases, and pruned once the window has passed.
CREATE TABLE replay_keys (
  key         text        PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX replay_keys_expires_at_idx ON replay_keys (expires_at);
