-- Threat alerts belong to a workspace: a subscription, a mute and an alert are keyed by the
-- channel's team too (a Slack Connect channel has one id in every workspace that shares it).

ALTER TABLE alert_subscriptions DROP CONSTRAINT alert_subscriptions_pkey;
ALTER TABLE alert_subscriptions ADD PRIMARY KEY (team_id, channel_id);

ALTER TABLE alert_mutes DROP CONSTRAINT alert_mutes_pkey;
ALTER TABLE alert_mutes ADD PRIMARY KEY (team_id, channel_id, visitor_id);

ALTER TABLE alerts DROP CONSTRAINT alerts_pkey;
ALTER TABLE alerts ADD PRIMARY KEY (team_id, channel_id, visitor_id);
DROP INDEX alerts_channel_id_last_seen_idx;
CREATE INDEX alerts_team_id_channel_id_last_seen_idx ON alerts (team_id, channel_id, last_seen);

DROP INDEX alert_groups_channel_id_ends_at_idx;
CREATE INDEX alert_groups_team_id_channel_id_ends_at_idx ON alert_groups (team_id, channel_id, ends_at);
