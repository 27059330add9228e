-- The test feature's own table: each /traffic ping, by workspace and person.
CREATE TABLE pings (
  team_id   text        NOT NULL,
  user_id   text        NOT NULL,
  pinged_at timestamptz NOT NULL DEFAULT now()
);
