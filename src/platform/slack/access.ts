import { problemMessage, type SlackMessage } from './kit/messages.js';

/** Who may see security details (IP addresses): empty lists mean everyone, everywhere. */
export interface SecurityAccess {
  channels: readonly string[];
  users: readonly string[];
}

export function maySeeSecurity(access: SecurityAccess, user: string, channel: string | undefined): boolean {
  const userOk = access.users.length === 0 || access.users.includes(user);
  const channelOk = access.channels.length === 0 || (channel !== undefined && access.channels.includes(channel));
  return userOk && channelOk;
}

/** Security cards may be posted for everyone only in the allowed channels. */
export function mayPostSecurity(access: SecurityAccess, channel: string | undefined): boolean {
  return access.channels.length === 0 || (channel !== undefined && access.channels.includes(channel));
}

/** A polite no, naming who can help. The ids come from configuration (validated), never from a request. */
export function refusal(access: SecurityAccess, user: string, channel: string | undefined): SlackMessage {
  const message = problemMessage('Security details are restricted.');
  const where = access.channels.map((c) => `<#${c}>`).join(', ');
  const who = access.users.slice(0, 10).map((u) => `<@${u}>`).join(', ');
  const lines: string[] = [];
  if (access.users.length > 0 && !access.users.includes(user)) lines.push(`Only ${who} can look up visitors; ask one of them.`);
  if (access.channels.length > 0 && !(channel && access.channels.includes(channel))) lines.push(`Visitor lookups work in ${where}.`);
  return {
    text: `${message.text} ${lines.join(' ')}`,
    blocks: [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: lines.join(' ') || ' ' }] }],
  };
}
