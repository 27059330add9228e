-- Security alerts: channel subscriptions, mutes, one alert per visitor per channel
-- (the threat scan's part of migration 002 is in src/features/threats/migrations).

-- A channel that wants alerts, from which severity up and for which checks.
CREATE TABLE alert_subscriptions (
  channel_id    text        PRIMARY KEY,
  team_id       text        NOT NULL,
  min_severity  text        NOT NULL CHECK (min_severity IN ('high', 'medium', 'low')),
  checks        jsonb       NOT NULL CHECK (jsonb_typeof(checks) = 'array'),  -- ["bot", "scraping", "vpn", "extensions"]
  created_by    text        NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- A visitor nobody in the channel wants to hear about, until a moment or (until NULL) for good.
CREATE TABLE alert_mutes (
  channel_id  text        NOT NULL,
  visitor_id  text        NOT NULL,
  until       timestamptz,
  muted_by    text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, visitor_id)
);

-- One alert per visitor per channel: inserting the row is the claim, so exactly one
-- replica posts it; later sightings update the row (and the message) instead.
CREATE TABLE alerts (
  channel_id       text        NOT NULL,
  visitor_id       text        NOT NULL,
  message_ts       text,                      -- set once posted
  thread_ts        text,                      -- where details go: its own ts or a burst summary's
  severity         text        NOT NULL CHECK (severity IN ('high', 'medium', 'low')),
  verdict          text        NOT NULL,
  reasons          jsonb       NOT NULL,      -- ["…", …]
  visit            jsonb       NOT NULL,      -- the visit that triggered (or last updated) it
  first_seen       timestamptz,
  last_seen        timestamptz NOT NULL,
  sightings        integer     NOT NULL DEFAULT 1,
  acknowledged_by  text,
  acknowledged_at  timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, visitor_id)
);
CREATE INDEX alerts_channel_id_last_seen_idx ON alerts (channel_id, last_seen);
