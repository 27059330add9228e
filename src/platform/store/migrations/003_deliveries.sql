-- The outbox: everything Lookout posts on its own is a row here first, written in the
-- same transaction as the decision behind it; delivery workers post the rows.

CREATE TABLE deliveries (
  id            bigserial   PRIMARY KEY,
  kind          text        NOT NULL,                 -- digest, alert, burst, sighting, update, notice
  channel_id    text        NOT NULL,                 -- a channel, or a user id for a direct message
  message       jsonb       NOT NULL,                 -- { text, blocks }
  plain         text,                                 -- the plain-text version, posted once if Slack refuses the blocks
  thread_ts     text,                                 -- a reply in this thread
  thread_of     bigint      REFERENCES deliveries (id) ON DELETE SET NULL,  -- a reply in the thread this delivery starts
  update_ts     text,                                 -- chat.update of this message instead of a post
  subject       jsonb,                                -- what the post is for, told when it is posted or fails
  status        text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'posted', 'failed')),
  attempts      integer     NOT NULL DEFAULT 0,
  next_at       timestamptz NOT NULL,                 -- not tried before this
  deadline      timestamptz NOT NULL,                 -- given up after this
  owner         text,                                 -- the replica sending it
  heartbeat_at  timestamptz,                          -- renewed while sending; a stale one is taken over
  maybe_posted  boolean     NOT NULL DEFAULT false,   -- an earlier attempt may have reached Slack: its owner died mid-post, or Slack did not answer in time
  message_ts    text,
  error         text,                                 -- the last failure, in Slack's words
  created_at    timestamptz NOT NULL,
  posted_at     timestamptz
);
CREATE INDEX deliveries_open_idx ON deliveries (channel_id, id) WHERE status IN ('pending', 'sending');
CREATE INDEX deliveries_created_at_idx ON deliveries (created_at);
