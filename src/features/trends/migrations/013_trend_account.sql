-- Kept trend figures belong to an analytics account (a hash of its base URL and key), not to
-- Lookout as a whole: two workspaces on one account share finished periods, and two accounts
-- never do. Figures kept before this migration name no account: they are dropped, and the
-- cache refills from the API the next time each period is wanted.
DELETE FROM trend_points;
ALTER TABLE trend_points ADD COLUMN account text NOT NULL;
ALTER TABLE trend_points DROP CONSTRAINT trend_points_pkey;
ALTER TABLE trend_points ADD PRIMARY KEY (account, report, filters_key, time_zone, bucket, metric);
