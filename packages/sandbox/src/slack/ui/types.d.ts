// The shapes the page gets from the offline Slack (ui-shapes.ts) and passes between its modules.

/** Block Kit JSON as the app sent it: blocks, elements, text objects, state values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Block Kit is open-ended JSON
export type Json = Record<string, any>;

export interface Team {
  id: string;
  name: string;
  default?: boolean;
}

export interface Person {
  id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
}

export interface ChannelInfo {
  id: string;
  name: string;
  is_private: boolean;
  is_archived: boolean;
  is_member: boolean;
}

/** GET /ui/workspace */
export interface WorkspaceInfo {
  team: Team;
  teams: Team[];
  users: Person[];
  channels: ChannelInfo[];
  bot: { userId: string; appId: string };
  slackbot: string;
  default_user: string;
  installed: boolean;
  installable: boolean;
  demo_account?: { base_url: string; api_key: string } | null;
}

export interface Message {
  channel: string;
  ts: string;
  user: string;
  text: string;
  blocks?: Json[];
  attachments?: Json[];
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  latest_reply?: string;
  reply_broadcast?: boolean;
  ephemeral?: boolean;
  bot?: boolean;
  edited?: boolean;
  updates: number;
  state?: Json;
}

export interface View {
  id: string;
  title?: Json;
  submit?: Json | null;
  close?: Json | null;
  blocks: Json[];
  state?: { values: Json };
  errors?: Record<string, string>;
}

export interface Thread {
  channel: string;
  ts: string;
  messages: Message[];
}

/** GET /ui/suggestions.json: the sandbox's Suggestions (suggestions.ts). */
export interface Suggestions {
  commands: {
    command: string;
    hint: string;
    description: string;
    words?: { word: string; detail: string; next?: { detail: string; words: string[] } }[];
  }[];
  examples: string[];
}

/** A suggestion the composer lists. */
export interface Suggestion {
  label: string;
  detail?: string;
  description?: string;
  insert: string;
  /** A whole command (`/traffic`), not a word after one. */
  command?: boolean;
  /** The word as typed so far. */
  word?: string;
}

/** How mrkdwn names and opens mentions. */
export interface TextContext {
  userName?: (id: string) => string;
  channelName?: (id: string) => string;
  onChannel?: (id: string) => unknown;
}

/** What Block Kit is drawn with (see blocks.js). */
export interface RenderContext {
  surface?: string;
  text?: TextContext;
  users?: Person[];
  channels?: ChannelInfo[];
  state?: Json;
  draft?: Json;
  errors?: Record<string, string>;
  onInput?: (blockId: string) => void;
  onAction?: (element: Json, blockId: string, value?: unknown) => unknown;
}

/** An Error from the JSON endpoints, with the body that said so. */
export interface ApiError extends Error {
  data?: Json;
}

/** GET /ui/slackbot/list: one of the app's MCP tools (slackbot.ts). */
export interface SlackbotTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Json;
}

/** POST /ui/slackbot/call: the tool's answer as Slackbot shows it. */
export interface SlackbotAnswer {
  text: string;
  blocks: Json[] | null;
  is_error: boolean;
  problems: string[];
}
