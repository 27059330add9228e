-- Watches: a rule on traffic, evaluated once a period by one replica, with the state of its current alert.
CREATE TABLE watches (
  id                bigserial   PRIMARY KEY,
  team_id           text        NOT NULL,
  channel_id        text        NOT NULL,
  owner_id          text        NOT NULL,
  rule              jsonb       NOT NULL,
  time_zone         text        NOT NULL,
  paused            boolean     NOT NULL DEFAULT false,
  muted_until       timestamptz,
  state             text        NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'breaching')),
  -- Each breach is an episode; its alert is the delivery that starts it, and the message it became.
  episode           integer     NOT NULL DEFAULT 0,
  breach_since      timestamptz,
  alert_delivery    bigint,
  alert_ts          text,
  acknowledged_by   text,
  acknowledged_at   timestamptz,
  -- The last period evaluated (one replica claims each), and what it found.
  last_period       text,
  last_outcome      text,
  last_value        double precision,
  last_text         text,
  last_error        text,
  last_evaluated_at timestamptz,
  claim_period      text,
  claim_owner       text,
  claim_at          timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watches_channel ON watches (channel_id);
