-- The threat scan's lookups belong to an analytics account: one account's visitor id says
-- nothing of another's. Answers kept before this migration name no account: they are
-- dropped (a cache; the next scan asks again). The scan's watermark moves to a key per
-- account when the scan first runs (ScanStateRepo.adopt), so no visit is skipped or seen twice.
DELETE FROM visitor_checks;
ALTER TABLE visitor_checks ADD COLUMN account text NOT NULL;
ALTER TABLE visitor_checks DROP CONSTRAINT visitor_checks_pkey;
ALTER TABLE visitor_checks ADD PRIMARY KEY (account, visitor_id);
