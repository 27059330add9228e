-- Lookout's first schema: scheduled digests, their runs, leases and stashed queries.

CREATE TABLE digests (
  id          bigserial PRIMARY KEY,
  team_id     text        NOT NULL,
  channel_id  text        NOT NULL,
  owner_id    text        NOT NULL,
  reports     jsonb       NOT NULL,               -- ["sources", "pages", …]
  filters     jsonb       NOT NULL DEFAULT '[]',  -- filter groups, as the API's filter_groups
  top_n       integer     NOT NULL,
  period      text        NOT NULL,               -- a range word: yesterday, last7d, lastmonth, …
  schedule    jsonb       NOT NULL,               -- { kind, time?, weekday?, monthday?, cron? }
  cron        text        NOT NULL,               -- five fields, derived from schedule
  time_zone   text        NOT NULL,
  paused      boolean     NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX digests_channel_id_idx ON digests (channel_id);

-- One row per digest per scheduled slot: the primary key is what makes a claim exclusive.
CREATE TABLE digest_runs (
  digest_id   bigint      NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
  slot        timestamptz NOT NULL,
  status      text        NOT NULL CHECK (status IN ('claimed', 'posted', 'failed', 'missed', 'abandoned')),
  claimed_by  text,
  message_ts  text,
  channel_id  text,
  error       text,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (digest_id, slot)
);
CREATE INDEX digest_runs_claimed_idx ON digest_runs (started_at) WHERE status = 'claimed';
