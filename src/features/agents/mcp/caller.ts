/**
 * Who asks /mcp, two ways in and one set of rules:
 * - signed by Slack (Slackbot): the app's signing secret over the raw body, within 5 minutes, once
 *   only (the same rule as /slack/events, platform/slack/guard.ts); the person is the one a call's
 *   `params._meta.slack` names, believed only because the signature covers it, in a workspace
 *   Lookout serves (its own install, or its organisation's org-wide install);
 * - `Authorization: Bearer <token>`: a person's agent token, live, in a workspace still installed.
 * Anything else is refused before the body is parsed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { InstallationRepo } from '../../../platform/slack/installations.js';
import type { SignedRequests } from '../../../platform/slack/guard.js';
import type { AgentTokenRepo } from '../tokens.js';

/** A person in a workspace, as authenticated. */
export interface Identity {
  team: string;
  enterprise?: string;
  user: string;
}

/** How a request got in: signed by Slack (each call names its person), or with a person's token. */
export type Entry = { via: 'slack' } | { via: 'token'; identity: Identity; token: number };

/** Why a request was refused, for the log (never the token). */
export type Refused = { refused: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What Slack puts in a tools/call's `params._meta.slack`; `enterprise_id` may be absent, null or empty off Enterprise Grid. */
const SLACK_META = z.object({
  user_id: z.string().min(1),
  team_id: z.string().min(1),
  enterprise_id: z.string().nullish(),
});

/** The person a Slack-signed call names; undefined when it names none. */
export function identityOf(meta: unknown): Identity | undefined {
  const slack = SLACK_META.safeParse((meta as { slack?: unknown } | undefined)?.slack);
  if (!slack.success) return undefined;
  const { user_id: user, team_id: team, enterprise_id: enterprise } = slack.data;
  return { team, user, ...(enterprise ? { enterprise } : {}) };
}

export interface Gate {
  signed: SignedRequests;
  tokens: AgentTokenRepo;
  /** A distributed app's installations; one workspace (none) serves whoever its own Slack signs for. */
  installations?: InstallationRepo;
  now: () => Date;
}

/** How a request got in, from its headers and raw body; refused when neither way holds. */
export async function entryOf(gate: Gate, headers: IncomingHttpHeaders, raw: string): Promise<Entry | Refused> {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1];
    const found = token ? await gate.tokens.verify(token, gate.now()) : undefined;
    if (!found) return { refused: 'an unknown, revoked or expired token' };
    if (!(await serves(gate, { team: found.team, user: found.user })))
      return { refused: 'a token of a workspace Lookout is not installed in' };
    return { via: 'token', identity: { team: found.team, user: found.user }, token: found.id };
  }
  if (headers['x-slack-signature'] === undefined) return { refused: 'neither signed by Slack nor a bearer token' };
  const verdict = await gate.signed.judge(headers, raw, { once: () => onceOnly(raw) });
  if (!verdict.ok) return { refused: 'refusal' in verdict ? `Slack signature: ${verdict.refusal}` : 'a replay' };
  return { via: 'slack' };
}

/** What runs nothing and tells nothing of a workspace: sent again, it is answered again. */
const RUNS_NOTHING = new Set(['initialize', 'ping', 'tools/list']);

/**
 * Whether a body must be let in once only: anything but messages that run nothing (the SDK
 * client's `initialize` and `notifications/initialized` are the same bytes for every client
 * within a second). A body that is not JSON is refused later anyway.
 */
export function onceOnly(raw: string): boolean {
  try {
    const parsed: unknown = JSON.parse(raw);
    const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((m) => (m as { method?: unknown } | null)?.method);
    return !methods.every((m) => typeof m === 'string' && (RUNS_NOTHING.has(m) || m.startsWith('notifications/')));
  } catch {
    return true;
  }
}

/**
 * Whether Lookout serves the workspace, as workspace-rule.ts decides for /slack/events: its own
 * installation, else its organisation's org-wide one (recorded for the workspace, unless Lookout
 * knows the workspace outside that organisation). Read at each call: an uninstall counts at once.
 */
export async function serves(gate: Gate, who: Identity): Promise<boolean> {
  const { installations } = gate;
  if (!installations) return true;
  if (await installations.queryFor(who.team)) return true;
  if (!who.enterprise || (await installations.outsideOrg(who.team, who.enterprise))) return false;
  await installations.servedByOrg(who.team, who.enterprise);
  return (await installations.queryFor(who.team)) !== undefined;
}
