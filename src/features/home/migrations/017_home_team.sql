-- A person's Home is theirs in one workspace: the same user id may open Lookout's Home in
-- another workspace (Slack Connect, an Enterprise Grid) and see that workspace's rows.
ALTER TABLE home_views DROP CONSTRAINT home_views_pkey;
ALTER TABLE home_views ADD PRIMARY KEY (team_id, user_id);
