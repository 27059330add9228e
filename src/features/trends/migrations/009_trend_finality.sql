-- A kept trend figure is final, or provisional until recheck_at: a period younger than a few
-- days, or a suspect empty answer, is asked again once. Figures kept before this migration were
-- kept by the old rule (over in the channel's zone, whatever the answer): each is asked again
-- once, the next time it is wanted.
ALTER TABLE trend_points ADD COLUMN final boolean NOT NULL DEFAULT false;
ALTER TABLE trend_points ADD COLUMN suspect boolean NOT NULL DEFAULT false;
ALTER TABLE trend_points ADD COLUMN recheck_at timestamptz;
UPDATE trend_points SET recheck_at = now();
