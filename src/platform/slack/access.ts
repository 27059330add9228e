import { escapeMrkdwn, fallbackText } from './kit/escape.js';
import { mrkdwn } from './kit/limits.js';
import { problemMessage, type SlackMessage } from './kit/messages.js';

/** "Watch #3 posts in #growth.": the channel as Slack's own link (its id comes from the store, never from a request). */
function postsIn(item: Owned, hint: string): SlackMessage {
  return {
    text: `${fallbackText(`${item.name} posts in`)} <#${item.channelId}>. ${fallbackText(hint)}`,
    blocks: [
      { type: 'section', text: mrkdwn(`:warning: ${escapeMrkdwn(item.name)} posts in <#${item.channelId}>.`) },
      { type: 'context', elements: [mrkdwn(escapeMrkdwn(hint))] },
    ],
  };
}

/** Whether `user` is in `channel`: undefined when Slack cannot say (Lookout is not in a private channel, Slack failed). */
export type Membership = (user: string, channel: string) => Promise<boolean | undefined>;

/** Something that posts in a channel and belongs to someone: a watch, a digest. */
export interface Owned {
  /** How it is named to people, e.g. "Watch #3". */
  name: string;
  ownerId: string;
  channelId: string;
}

/** Where a person acts from: a channel (a command, a button in a message), or their App Home. */
export type From = { channelId: string | undefined } | 'home';

/** A refusal in words, or undefined when allowed. */
export type Refusal = SlackMessage | undefined;

/** Who may do what: admins manage anything; security details only for the listed users, in the listed channels. */
export interface AccessRules {
  /** Lookout admins; empty means everyone. */
  admins: readonly string[];
  /** Who may see security details (IP addresses), and where; empty lists mean everyone, everywhere. */
  security: { channels: readonly string[]; users: readonly string[] };
}

/**
 * Who may do what, each rule in one place, the same for a command, a button, a modal and the Home.
 * "Admin" here is a person ADMIN_USERS names: with ADMIN_USERS empty, nobody is exempt from a channel's rules.
 * - post in a channel (a watch, a digest or threat alerts that post there): its members, or an admin;
 * - change, pause or remove a watch: its owner or an admin (with no ADMIN_USERS set: a member of its
 *   channel), from its channel or the Home;
 * - mute, unmute or acknowledge a watch: its owner, an admin or a member of its channel, from its
 *   channel or the Home;
 * - see what posts in a channel (the Home's failed deliveries) and retry it: the channel's members.
 */
export class Access {
  constructor(
    readonly rules: AccessRules,
    private readonly membership: Membership,
  ) {}

  private named(user: string): boolean {
    return this.rules.admins.includes(user);
  }

  /** May `user` have Lookout post in `channel` for them? Its members may, and admins anywhere. */
  async mayPostIn(user: string, channel: string): Promise<Refusal> {
    if (this.named(user)) return undefined;
    const member = await this.membership(user, channel);
    if (member === true) return undefined;
    if (member === undefined)
      return problemMessage(
        `I can't tell who is in that channel.`,
        'Invite Lookout to it (/invite @Lookout), then try again.',
      );
    return problemMessage(
      `You are not in that channel, so Lookout will not post there for you.`,
      'Join it first, or ask an admin.',
    );
  }

  /** Change, pause or remove `item`: its owner or an admin, from its own channel or the Home. */
  async mayChange(user: string, item: Owned, from: From): Promise<Refusal> {
    const where = this.fromItsChannel(item, from);
    if (where) return where;
    if (item.ownerId === user || this.named(user)) return undefined;
    if (this.rules.admins.length === 0 && (await this.membership(user, item.channelId)) === true) return undefined;
    return problemMessage(`${item.name} belongs to someone else; only its owner or an admin can change it.`);
  }

  /** Mute, unmute or acknowledge `item`: its owner, an admin or a member of its channel, from its own channel or the Home. */
  async mayRespond(user: string, item: Owned, from: From): Promise<Refusal> {
    const where = this.fromItsChannel(item, from);
    if (where) return where;
    if (item.ownerId === user || this.named(user) || (await this.membership(user, item.channelId)) === true)
      return undefined;
    return problemMessage(
      `${item.name} posts in a channel you are not in.`,
      'Its owner, an admin or a member of its channel can do that.',
    );
  }

  /** The channels among `channels` that `user` is in (what the Home shows them). */
  async channelsOf(user: string, channels: readonly string[]): Promise<string[]> {
    const kept = await Promise.all(
      channels.map(async (c) => ((await this.membership(user, c)) === true ? c : undefined)),
    );
    return kept.filter((c): c is string => c !== undefined);
  }

  private fromItsChannel(item: Owned, from: From): Refusal {
    if (from === 'home' || from.channelId === item.channelId) return undefined;
    return postsIn(item, 'Do that there, or from your App Home (Lookout, Home tab).');
  }

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
    if (users.length > 0 && !users.includes(user))
      lines.push(
        `Only ${users
          .slice(0, 10)
          .map((u) => `<@${u}>`)
          .join(', ')} can look up visitors; ask one of them.`,
      );
    if (channels.length > 0 && !(channel && channels.includes(channel)))
      lines.push(`Visitor lookups work in ${channels.map((c) => `<#${c}>`).join(', ')}.`);
    return {
      text: `${message.text} ${lines.join(' ')}`,
      blocks: [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: lines.join(' ') || ' ' }] }],
    };
  }
}
