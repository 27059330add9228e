-- Threat alerts grouped by default: new flagged visitors of a channel within a few minutes
-- share one message that grows, with a reply per visitor in its thread.

-- How a channel gets its alerts: 'grouped' (the default) or 'each' (one message per visitor).
ALTER TABLE alert_subscriptions ADD COLUMN grouping text NOT NULL DEFAULT 'grouped' CHECK (grouping IN ('grouped', 'each'));

-- A group of a channel's new alerts: its window, and the delivery of its top-level message
-- (its first visitor's alert until a second one joins and it becomes the summary).
CREATE TABLE alert_groups (
  id           bigserial   PRIMARY KEY,
  channel_id   text        NOT NULL,
  started_at   timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL,              -- alerts decided before this join it
  delivery_id  bigint      NOT NULL,
  summarised   boolean     NOT NULL DEFAULT false,  -- its message is the summary, not its first visitor's alert
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_groups_channel_id_ends_at_idx ON alert_groups (channel_id, ends_at);

-- The group an alert is in, and the delivery that announces it now: only that delivery's
-- post records where the alert is (an alert moved into a group's thread is announced again).
ALTER TABLE alerts ADD COLUMN group_id bigint;
ALTER TABLE alerts ADD COLUMN delivery_id bigint;
CREATE INDEX alerts_group_id_idx ON alerts (group_id) WHERE group_id IS NOT NULL;
