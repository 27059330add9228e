/**
 * The bot scopes Lookout asks for, and no more (manifest.json and the distributed manifest list the same):
 * - commands: /traffic and /visitor;
 * - chat:write, chat:write.public: digests, alerts and watches post in channels, including public ones it was not invited to;
 * - users:read: a person's time zone (users.info), and whether they administer the workspace;
 * - channels:read, groups:read: a channel typed as #name (conversations.list) and who is in it (conversations.members).
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'chat:write.public',
  'users:read',
  'channels:read',
  'groups:read',
] as const;
