/**
 * The bot scopes Lookout asks for, and no more (manifest.json and the distributed manifest list the same):
 * - commands, for /traffic and /visitor;
 * * - chat:write and chat:write.public, for digests, alerts and watches posting in channels, public ones it was not invited to included;
 * - users:read, for a person's time zone (users.info), and whether they administer the workspace;
 * - channels:read and groups:read, for a channel typed as #name (conversations.list) and who is in it (conversations.members);
 * - mcp:connect, for Slackbot to call Lookout's MCP server (the manifest's mcp_servers, /mcp).
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'chat:write.public',
  'users:read',
  'channels:read',
  'groups:read',
  'mcp:connect',
] as const;
