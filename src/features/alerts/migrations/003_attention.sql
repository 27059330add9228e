-- The alerts feature's part of migration 003 (its other parts: digests, platform).

ALTER TABLE alert_subscriptions ADD COLUMN attention text;
