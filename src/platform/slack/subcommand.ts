import type { SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Token } from '../../kernel/text.js';
import type { Logger } from '../log.js';
import type { Reply } from './respond.js';

/** A `/traffic <word> …` command, after the ack: its words (tokens) and how to answer. */
export interface SubcommandInput {
  command: SlashCommand;
  client: WebClient;
  args: Token[];
  reply: Reply;
  log: Logger;
}

export type Subcommand = (input: SubcommandInput) => Promise<unknown>;
