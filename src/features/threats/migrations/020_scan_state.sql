-- The threat scan's state was named watch_state, beside the metric watches it has nothing to
-- do with: it becomes scan_state. Safe while replicas of the earlier version still run (a
-- rolling deploy): they keep reading and writing watch_state, now a view over scan_state.
-- A view over one table with every column is automatically updatable, so their SELECT,
-- UPDATE and INSERT … ON CONFLICT (key) statements reach scan_state and its primary key
-- unchanged (test/features/threats/scan-state.test.ts runs them, on PGlite and PostgreSQL).
-- Their lease is the key 'threat-watch'; this version's scan holds both 'threat-scan' and
-- 'threat-watch' (threats/lease.ts), so an earlier replica never scans at the same time.
-- A later release, once no earlier replica runs, stops taking 'threat-watch' and drops the view.
ALTER TABLE watch_state RENAME TO scan_state;
ALTER INDEX watch_state_pkey RENAME TO scan_state_pkey;
CREATE VIEW watch_state AS SELECT * FROM scan_state;
