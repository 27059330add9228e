-- Figures of finished periods (a day, an hour of a day, a week): they never change, so each is fetched once.
CREATE TABLE trend_points (
  report      text NOT NULL,
  filters_key text NOT NULL,
  time_zone   text NOT NULL,
  bucket      text NOT NULL,
  metric      text NOT NULL,
  value       double precision NOT NULL,
  fetched_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (report, filters_key, time_zone, bucket, metric)
);
