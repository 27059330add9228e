-- Generic leases and slot claims: whoever holds an unexpired row owns the key.
CREATE TABLE job_claims (
  key         text        PRIMARY KEY,
  owner       text        NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Encoded queries too long for a button value; the button carries the id.
CREATE TABLE query_stash (
  id          text        PRIMARY KEY,
  encoded     text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX query_stash_created_at_idx ON query_stash (created_at);
