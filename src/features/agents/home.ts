import type { Button, KnownBlock, View } from '@slack/types';
import { formatDateTime } from '../../kernel/format.js';
import { neutralize, RowId } from '../../kernel/text.js';
import type { Logger } from '../../platform/log.js';
import { escapeMrkdwn, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import { infoMessage, problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { AgentTokenRepo } from './tokens.js';

/** The buttons of the Home's "Connect an AI agent" section; Revoke's value is the token's id. */
export const AGENT_ACTIONS = {
  create: 'agents.token.create',
  revoke: 'agents.token.revoke',
} as const;

/** The "Create a token" form; once submitted it is updated to show the token (`TOKEN_SHOWN_VIEW`). */
export const TOKEN_VIEW = 'agents.token';
export const TOKEN_SHOWN_VIEW = 'agents.token.shown';
export const NAME_BLOCK = 'name';
export const NAME_ACTION = 'value';
export const NAME_MAX = 50;

/** Tokens a person may hold at once in a workspace: all of them fit on the Home. */
export const TOKENS_PER_PERSON = 10;

const TITLE = plainText('Connect an AI agent', LIMITS.viewTitle);
const WHAT =
  "Claude Code, Cursor or any MCP client can ask Lookout's figures as you, seeing only what you may see in this workspace.";

type TokenListed = Awaited<ReturnType<AgentTokenRepo['list']>>[number];

export interface AgentHomeDeps {
  tokens: Pick<AgentTokenRepo, 'create' | 'list' | 'revoke'>;
  /** How long a token works (AGENT_TOKEN_TTL). */
  ttlMs: number;
  /** Lookout's MCP endpoint (its public address + `/mcp`), when it is known. */
  mcpUrl: () => string | undefined;
  now: () => Date;
  /** The zone the dates are shown in. */
  timeZone: string;
  log: Logger;
}

function where(url: string | undefined): string {
  return url
    ? `*MCP server:* ${mrkdwnCode(url, 500)}`
    : "*MCP server:* this Lookout's address followed by `/mcp` (whoever runs Lookout knows its address)";
}

function revokeButton(t: TokenListed): Button {
  return {
    type: 'button',
    action_id: AGENT_ACTIONS.revoke,
    value: String(t.id),
    style: 'danger',
    text: plainText('Revoke', LIMITS.buttonText),
    confirm: {
      title: plainText('Revoke this token?', LIMITS.viewTitle),
      text: mrkdwn(`An agent using “${escapeMrkdwn(t.name)}” is refused from now on. This cannot be undone.`),
      confirm: plainText('Revoke', LIMITS.buttonText),
      deny: plainText('Keep it', LIMITS.buttonText),
    },
  };
}

/** A name as typed: disguising characters out, spaces trimmed; undefined when empty or too long. */
export function tokenName(typed: string): string | undefined {
  const name = neutralize(typed).replace(/\s+/g, ' ').trim();
  const length = Array.from(name).length;
  return length >= 1 && length <= NAME_MAX ? name : undefined;
}

/** The form asking for the token's name. */
export function nameModal(): View {
  return {
    type: 'modal',
    callback_id: TOKEN_VIEW,
    title: TITLE,
    submit: plainText('Create', LIMITS.buttonText),
    close: plainText('Cancel', LIMITS.buttonText),
    blocks: [
      { type: 'section', text: mrkdwn(WHAT) },
      {
        type: 'input',
        block_id: NAME_BLOCK,
        label: plainText('Name', LIMITS.buttonText),
        hint: plainText('So you know which agent uses it: it is listed under this name on your Home.'),
        element: {
          type: 'plain_text_input',
          action_id: NAME_ACTION,
          min_length: 1,
          max_length: NAME_MAX,
          placeholder: plainText('e.g. Claude Code on my laptop', LIMITS.placeholder),
        },
      },
    ],
  };
}

/**
 * The form once the token is made: the token, once, in a block made to be copied, and how
 * an agent sends it. Nothing keeps this view: closed, the token is gone from Slack and Lookout.
 */
export function tokenModal(name: string, token: string, mcpUrl: string | undefined, expires: string): View {
  return {
    type: 'modal',
    callback_id: TOKEN_SHOWN_VIEW,
    title: TITLE,
    close: plainText('Done', LIMITS.buttonText),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(`:key: Your token “${escapeMrkdwn(name)}” works until ${escapeMrkdwn(expires)}:`),
      },
      {
        type: 'rich_text',
        block_id: 'token',
        elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: token }] }],
      },
      {
        type: 'section',
        text: mrkdwn(
          ":warning: *It is shown only now: copy it into your agent's configuration.* Lookout keeps only a fingerprint of it and cannot show it again. Lost it? Revoke it on your Home and create another.",
        ),
      },
      {
        type: 'section',
        text: mrkdwn(
          `*How to use it:* add Lookout to your agent as a remote MCP server (Streamable HTTP).\n${where(mcpUrl)}\n*Header:* \`Authorization: Bearer <token>\``,
        ),
      },
      {
        type: 'context',
        elements: [
          mrkdwn('It acts as you: an agent using it sees only what you may see here. Keep it secret, like a password.'),
        ],
      },
    ],
  };
}

/** The Home's "Connect an AI agent" section: what it is, where agents connect, and the person's tokens. */
export function agentSection(
  tokens: readonly TokenListed[],
  mcpUrl: string | undefined,
  timeZone: string,
  now: Date,
): KnownBlock[] {
  const at = (d: Date) => escapeMrkdwn(formatDateTime(d.toISOString(), timeZone, now));
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Connect an AI agent', LIMITS.headerText) },
    {
      type: 'section',
      block_id: 'agents',
      text: mrkdwn(`${WHAT}\n${where(mcpUrl)}`),
      ...(tokens.length < TOKENS_PER_PERSON
        ? {
            accessory: {
              type: 'button',
              action_id: AGENT_ACTIONS.create,
              value: 'new',
              style: 'primary',
              text: plainText('Create a token', LIMITS.buttonText),
            },
          }
        : {}),
    },
  ];
  for (const t of tokens.slice(0, TOKENS_PER_PERSON)) {
    const expired = t.expiresAt.getTime() <= now.getTime();
    blocks.push({
      type: 'section',
      block_id: `agents.token-${t.id}`,
      text: mrkdwn(
        `:key: ${escapeMrkdwn(t.name)} · created ${at(t.createdAt)} · last used ${t.lastUsedAt ? at(t.lastUsedAt) : 'never'} · ${expired ? 'expired' : 'expires'} ${at(t.expiresAt)}`,
      ),
      accessory: revokeButton(t),
    });
  }
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        tokens.length === 0
          ? 'No tokens yet: *Create a token* for each agent you connect.'
          : tokens.length >= TOKENS_PER_PERSON
            ? `Times in ${escapeMrkdwn(timeZone)}. You hold ${TOKENS_PER_PERSON} tokens, the most one person may: revoke one to create another.`
            : `Times in ${escapeMrkdwn(timeZone)}. One token per agent: revoke it when you stop using that agent.`,
      ),
    ],
  });
  return blocks;
}

export type Created = { ok: true; view: View } | { ok: false; problem: string };

/**
 * A person's tokens on their Home: create (shown once), list, revoke. The workspace and the
 * person are always the signed request's: a button names a token, never whose it is.
 */
export class AgentHome {
  constructor(private readonly deps: AgentHomeDeps) {}

  async section(team: string, user: string): Promise<KnownBlock[]> {
    const tokens = await this.deps.tokens.list(team, user);
    return agentSection(tokens, this.deps.mcpUrl(), this.deps.timeZone, this.deps.now());
  }

  /** Makes a token named as typed; the view that shows it, or the problem to show beside the name. */
  async create(team: string, user: string, typed: string): Promise<Created> {
    const name = tokenName(typed);
    if (!name) return { ok: false, problem: `Give it a name of 1 to ${NAME_MAX} characters.` };
    const { log, tokens, ttlMs } = this.deps;
    try {
      if ((await tokens.list(team, user)).length >= TOKENS_PER_PERSON)
        return {
          ok: false,
          problem: `You hold ${TOKENS_PER_PERSON} tokens, the most one person may: revoke one on your Home first.`,
        };
      const now = this.deps.now();
      const { id, token } = await tokens.create(team, user, name, ttlMs, now);
      log.info({ team, user, id }, 'agent token created');
      const expires = formatDateTime(new Date(now.getTime() + ttlMs).toISOString(), this.deps.timeZone, now);
      return { ok: true, view: tokenModal(name, token, this.deps.mcpUrl(), `${expires} (${this.deps.timeZone})`) };
    } catch (error) {
      log.error({ team, user, err: error instanceof Error ? error.message : String(error) }, 'agent token not created');
      return { ok: false, problem: 'Lookout could not create the token just now. Try again.' };
    }
  }

  /** Revokes the token a Revoke button names (`value`), if it is the person's in this workspace. */
  async revoke(team: string, user: string, value: string | undefined): Promise<SlackMessage> {
    const id = RowId.safeParse(value);
    if (!id.success || !(await this.deps.tokens.revoke(team, user, id.data))) {
      this.deps.log.warn({ team, user }, 'agent token not revoked: not theirs, or revoked already');
      return problemMessage('That token is not one of yours, or it is revoked already.', 'Open the Home tab again.');
    }
    this.deps.log.info({ team, user, id: id.data }, 'agent token revoked');
    return infoMessage('Token revoked: an agent using it is refused from now on.');
  }
}
