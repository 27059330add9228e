import type { SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Token } from '../../kernel/text.js';
import type { Logger } from '../log.js';
import type { Tenant } from '../tenancy/tenants.js';
import type { Reply, ResponseUrls } from './respond.js';

/** A `/traffic <word> …` command, after the ack: its words (tokens) and how to answer. */
export interface SubcommandInput {
  command: SlashCommand;
  client: WebClient;
  args: Token[];
  reply: Reply;
  log: Logger;
  /** The workspace the command comes from (Slack's signed body). */
  team: string;
  /** Its tenant; throws TenantError when the workspace has no analytics connected (the person is told how to connect). */
  tenant: () => Promise<Tenant>;
  /** Answers through the command's response_url beyond `reply` (in the channel, in place). */
  responses: ResponseUrls;
}

export type Subcommand = (input: SubcommandInput) => Promise<unknown>;
