-- Who has opened Lookout's Home tab, and a hash of what it last showed them (published again only when it differs).
CREATE TABLE home_views (
  user_id    text        PRIMARY KEY,
  opened_at  timestamptz NOT NULL DEFAULT now(),
  view_hash  text
);
