import { problemMessage, type SlackMessage } from './kit/messages.js';

/** Who may do what: admins manage anything; security details only for the listed users, in the listed channels. */
export interface AccessRules {
  /** Lookout admins; empty means everyone. */
  admins: readonly string[];
  /** Who may see security details (IP addresses), and where; empty lists mean everyone, everywhere. */
  security: { channels: readonly string[]; users: readonly string[] };
}

export class Access {
  constructor(readonly rules: AccessRules) {}

  isAdmin(user: string): boolean {
    return this.rules.admins.length === 0 || this.rules.admins.includes(user);
  }

  /** Admins may change anything; others only what they own. */
  mayManage(user: string, ownerId: string): boolean {
    return this.isAdmin(user) || ownerId === user;
  }

  maySeeSecurity(user: string, channel: string | undefined): boolean {
    return this.maySeeSecurityPrivately(user) && this.mayPostSecurity(channel);
  }

  /** On a surface only the person sees (App Home), the channels do not matter: only who they are. */
  maySeeSecurityPrivately(user: string): boolean {
    const { users } = this.rules.security;
    return users.length === 0 || users.includes(user);
  }

  /** Security details may be posted for everyone only in the allowed channels. */
  mayPostSecurity(channel: string | undefined): boolean {
    const { channels } = this.rules.security;
    return channels.length === 0 || (channel !== undefined && channels.includes(channel));
  }

  /** A polite no, naming who can help. The ids come from configuration (validated), never from a request. */
  securityRefusal(user: string, channel: string | undefined): SlackMessage {
    const { channels, users } = this.rules.security;
    const message = problemMessage('Security details are restricted.');
    const lines: string[] = [];
    if (users.length > 0 && !users.includes(user)) lines.push(`Only ${users.slice(0, 10).map((u) => `<@${u}>`).join(', ')} can look up visitors; ask one of them.`);
    if (channels.length > 0 && !(channel && channels.includes(channel))) lines.push(`Visitor lookups work in ${channels.map((c) => `<#${c}>`).join(', ')}.`);
    return {
      text: `${message.text} ${lines.join(' ')}`,
      blocks: [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: lines.join(' ') || ' ' }] }],
    };
  }
}
