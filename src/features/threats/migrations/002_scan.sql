-- The threat scan's part of migration 002 (its other part: alerts): a cache of security
-- answers, and the scan's progress.
-- Security answers per visitor, so a busy watcher does not ask twice in a short while.
CREATE TABLE visitor_checks (
  visitor_id  text        PRIMARY KEY,
  facts       jsonb       NOT NULL,
  checked_at  timestamptz NOT NULL
);
CREATE INDEX visitor_checks_checked_at_idx ON visitor_checks (checked_at);

-- Where each watcher got to. seen_ids: the visit ids AT the watermark instant, so the
-- next page, which starts at that instant again, skips the ones already handled.
CREATE TABLE watch_state (
  key            text        PRIMARY KEY,
  watermark      timestamptz,
  seen_ids       jsonb       NOT NULL DEFAULT '[]',
  last_scan_at   timestamptz,               -- the last successful scan
  last_error     text,                      -- the last failure since then, cleared by progress
  last_error_at  timestamptz,
  last_counts    jsonb,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
