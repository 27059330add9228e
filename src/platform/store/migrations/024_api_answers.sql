-- Analytics API answers shared by replicas (SharedFetcher): one row a question of an account
-- (the account's hash, the question's hash), either being asked (fetched_at NULL: the replica
-- named in asked_by is asking it since asked_at) or answered (body: the rows as JSON, fresh for
-- a minute after fetched_at). Pruned a minute after it is of no more use.
CREATE TABLE api_answers (
  account     text        NOT NULL,
  question    text        NOT NULL,
  asked_by    text        NOT NULL,
  asked_at    timestamptz NOT NULL,
  fetched_at  timestamptz,
  body        text,
  PRIMARY KEY (account, question)
);
