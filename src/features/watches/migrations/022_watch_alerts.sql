-- Each breach of a watch (the start of an episode), written with the evaluation that found it;
-- the list and App Home count those of the last 30 days. Pruned a little after that.
CREATE TABLE watch_alerts (
  watch_id  bigint      NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
  team_id   text        NOT NULL,
  period    text        NOT NULL,
  at        timestamptz NOT NULL,
  PRIMARY KEY (watch_id, period)
);
CREATE INDEX watch_alerts_at ON watch_alerts (at);
CREATE INDEX watch_alerts_team_id_idx ON watch_alerts (team_id);
