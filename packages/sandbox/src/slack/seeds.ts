/** The sandbox's workspaces as they are made: their teams, bots, people and channels. */
import type { Team, SlackUser, Channel } from './workspace.js';

export const TEAM: Team = { id: 'T_LOOKOUT', name: 'Lookout Sandbox', domain: 'lookout-sandbox' };
export const BOT = { userId: 'U_LOOKOUT_BOT', botId: 'B_LOOKOUT', appId: 'A_LOOKOUT', name: 'lookout' } as const;
export const SLACKBOT = 'USLACKBOT';

/** The app's bot in one workspace: the app id is the app's, the bot user and bot ids are the workspace's own. */
export interface BotIdentity {
  readonly userId: string;
  readonly botId: string;
  readonly appId: string;
  readonly name: string;
}

/** The second workspace: its own people, channels and bot user, nothing shared with the first but the app. */
export const OTHER_TEAM: Team = { id: 'T_OTHER', name: 'Other Co', domain: 'other-co' };
export const OTHER_BOT: BotIdentity = { userId: 'U_OTHER_BOT', botId: 'B_OTHER', appId: BOT.appId, name: 'lookout' };

const SEED_USERS: SlackUser[] = [
  { id: 'U_ALICE', name: 'alice', real_name: 'Alice Adler', tz: 'Europe/Berlin', is_bot: false },
  { id: 'U_BOB', name: 'bob', real_name: 'Bob Brown', tz: 'America/New_York', is_bot: false },
  { id: 'U_CAROL', name: 'carol', real_name: 'Carol Chen', tz: 'UTC', is_bot: false },
];

const SEED_CHANNELS: Array<Omit<Channel, 'created'>> = [
  { id: 'C_GENERAL', name: 'general', is_private: false, is_archived: false, is_member: true },
  { id: 'C_MARKETING', name: 'marketing', is_private: false, is_archived: false, is_member: true },
  { id: 'C_SECURITY', name: 'security', is_private: false, is_archived: false, is_member: true },
  { id: 'C_ARCHIVED', name: 'old-news', is_private: false, is_archived: true, is_member: false },
];

const OTHER_USERS: SlackUser[] = [
  { id: 'U_DANA', name: 'dana', real_name: 'Dana Diaz', tz: 'America/Los_Angeles', is_bot: false },
  { id: 'U_ERIK', name: 'erik', real_name: 'Erik Ek', tz: 'Europe/Stockholm', is_bot: false },
];

/** The app is not installed in Other Co at first, so its bot is in no channel there. */
const OTHER_CHANNELS: Array<Omit<Channel, 'created'>> = [
  { id: 'C_OTHER_GENERAL', name: 'general', is_private: false, is_archived: false, is_member: false },
  { id: 'C_OTHER_GROWTH', name: 'growth', is_private: false, is_archived: false, is_member: false },
];

/** What a workspace holds when it is made: who and where. */
export interface WorkspaceSeed {
  team: Team;
  bot: BotIdentity;
  users: readonly SlackUser[];
  channels: ReadonlyArray<Omit<Channel, 'created'>>;
}

export const LOOKOUT_SEED: WorkspaceSeed = { team: TEAM, bot: BOT, users: SEED_USERS, channels: SEED_CHANNELS };
export const OTHER_SEED: WorkspaceSeed = {
  team: OTHER_TEAM,
  bot: OTHER_BOT,
  users: OTHER_USERS,
  channels: OTHER_CHANNELS,
};

/** A further workspace: the app installed there with `botToken` (without one: not installed); its bot is `U_<id>_BOT`. */
export interface ExtraWorkspace {
  team: Team;
  botToken?: string;
  channels: Array<{ id: string; name: string }>;
  /** Its people (default none). */
  users?: Array<{ id: string; name: string; tz?: string }>;
}

export function extraSeed(w: ExtraWorkspace): WorkspaceSeed {
  return {
    team: w.team,
    bot: { userId: `U_${w.team.id}_BOT`, botId: `B_${w.team.id}`, appId: BOT.appId, name: 'lookout' },
    users: (w.users ?? []).map((u) => ({
      id: u.id,
      name: u.name,
      real_name: u.name,
      tz: u.tz ?? 'UTC',
      is_bot: false,
    })),
    channels: w.channels.map((c) => ({ ...c, is_private: false, is_archived: false, is_member: true })),
  };
}
