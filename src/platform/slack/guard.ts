/**
 * What every request to /slack/events passes before Bolt sees it: a body within the
 * limit, a signature that verifies, a timestamp within 5 minutes either way (Bolt only
 * refuses old ones), a signature not accepted before (a replay; an Events API retry
 * signed the same as its accepted original is acknowledged with 200 and not handled), and the shape of a Slack payload (Bolt reads
 * `body.ssl_check` of a `payload=null` and crashes). The body is handed on buffered, and
 * Bolt's receiver does not verify it again. The signature, window and once-only rule
 * (SignedRequests) is the same one /mcp's Slack-signed requests pass.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import { growingLru } from '../lru.js';
import { z } from 'zod';
import type { Logger } from '../log.js';

export const WINDOW_MS = 5 * 60_000;
const BODY_LIMIT = 4 * 1024 * 1024;

/** Why the guard refused a request: the label of lookout_requests_refused_total. */
export type Refusal =
  | 'too_large'
  | 'unsigned'
  | 'bad_signature'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'not_a_payload'
  | 'replay'
  | 'unreadable';

/** Told of each request the guard judged: accepted, or refused and why (a timestamp refusal with this clock minus Slack's, in seconds). */
export type GuardObserve = (outcome: 'accepted' | Refusal, skewSeconds?: number) => void;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const id = z.looseObject({ id: z.string() });
/** What every payload may carry, in the shape Bolt reads it (it dereferences these without checking). */
const common = {
  team: id.nullish(),
  user: id.optional(),
  channel: id.optional(),
  enterprise: z.looseObject({}).nullish(),
  container: z.looseObject({}).optional(),
  response_urls: z.array(z.looseObject({})).optional(),
};
const view = z.looseObject({ id: z.string(), callback_id: z.string(), type: z.string() });
const event = z.looseObject({
  type: z.string(),
  channel: z.union([z.string(), id]).optional(),
  item: z.looseObject({}).optional(),
});

/** The payloads Lookout and Bolt handle, each with the fields Bolt reads; anything else is not a Slack payload. */
const PAYLOAD = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('block_actions'),
    ...common,
    user: id,
    actions: z.array(z.looseObject({ action_id: z.string(), type: z.string() })).min(1),
  }),
  z.looseObject({
    type: z.literal('block_suggestion'),
    ...common,
    user: id,
    action_id: z.string(),
    block_id: z.string(),
    value: z.string(),
  }),
  z.looseObject({ type: z.literal('view_submission'), ...common, user: id, view }),
  z.looseObject({ type: z.literal('view_closed'), ...common, user: id, view }),
  z.looseObject({ type: z.literal('shortcut'), ...common, user: id, callback_id: z.string() }),
  z.looseObject({ type: z.literal('message_action'), ...common, user: id, callback_id: z.string() }),
  z.looseObject({ type: z.literal('event_callback'), team_id: z.string().optional(), event }),
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  z.looseObject({ type: z.literal('app_rate_limited') }),
]);

const COMMAND_FIELDS = ['user_id', 'channel_id', 'team_id'] as const;
const OPTIONAL_COMMAND_FIELDS = ['text', 'response_url', 'trigger_id'] as const;

/** A slash command's form, with the fields Bolt reads as strings (a plain check: it runs on every command). */
function isCommand(form: ParsedUrlQuery): boolean {
  return (
    typeof form.command === 'string' &&
    form.command.startsWith('/') &&
    COMMAND_FIELDS.every((field) => typeof form[field] === 'string') &&
    OPTIONAL_COMMAND_FIELDS.every((field) => form[field] === undefined || typeof form[field] === 'string')
  );
}

const FORM = 'application/x-www-form-urlencoded';
const isForm = (contentType: string | undefined): boolean => (contentType ?? '').split(';')[0]!.trim() === FORM;

/** Why a body is not a Slack payload, in a few words; undefined when it is one. */
export function checkShape(
  contentType: string | undefined,
  body: string,
  form = isForm(contentType) ? parseQuery(body) : undefined,
): string | undefined {
  let parsed: unknown;
  if (form) {
    if (form.ssl_check === '1') return undefined;
    if (form.payload === undefined)
      return isCommand(form) ? undefined : 'a form that is neither a slash command nor a payload';
    if (typeof form.payload !== 'string') return 'more than one payload';
    try {
      parsed = JSON.parse(form.payload);
    } catch {
      return 'a payload that is not JSON';
    }
  } else {
    try {
      parsed = JSON.parse(body);
    } catch {
      return 'a body that is not JSON';
    }
  }
  const result = PAYLOAD.safeParse(parsed);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return `not a Slack payload (${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unknown shape'})`;
}

/** How a signed request was judged: accepted, or refused (with the HTTP status to answer and, for a timestamp, the skew). */
export type Verdict =
  | { ok: true }
  | { ok: false; refusal: Refusal; status: number; skewSeconds?: number }
  /** An Events API retry signed the same as its accepted original: acknowledged, not handled again. */
  | { ok: false; retried: true };

export interface SignedOptions {
  signingSecret: string;
  /** True the first time a key is seen within `ttlMs`, across replicas (the store); may throw while the store is down. */
  firstSeen?: (key: string, ttlMs: number) => Promise<boolean>;
  log: Logger;
  now?: () => number;
  /** Told of each request judged (counted, and the clock's skew watched). */
  observe?: GuardObserve;
}

/**
 * One rule for every request Slack signs (/slack/events, /mcp): the signature over the raw
 * body, a timestamp within 5 minutes either way, and once only (this replica's memory, and
 * the store across replicas). Once the signature and timestamp hold, `shape` says why a body
 * is not what the path takes, and `once` whether it must be refused a second time (default:
 * always; /mcp: not a body that runs nothing, caller.ts).
 */
export class SignedRequests {
  private readonly now: () => number;
  private readonly observe: GuardObserve;
  // This replica's recent signatures: replays are caught here even while the store is down.
  private readonly recent = growingLru<string, true>(50_000, { ttl: WINDOW_MS });

  constructor(private readonly o: SignedOptions) {
    this.now = o.now ?? Date.now;
    this.observe = o.observe ?? (() => {});
  }

  async judge(
    headers: IncomingHttpHeaders,
    body: string,
    { shape = () => undefined, once = () => true }: { shape?: () => string | undefined; once?: () => boolean } = {},
  ): Promise<Verdict> {
    const { log } = this.o;
    const refuse = (refusal: Refusal, status: number, skewSeconds?: number): Verdict => {
      this.observe(refusal, skewSeconds);
      return { ok: false, refusal, status, ...(skewSeconds !== undefined ? { skewSeconds } : {}) };
    };
    const timestamp = Number(headers['x-slack-request-timestamp']);
    const signature = headers['x-slack-signature'];
    if (!Number.isFinite(timestamp) || typeof signature !== 'string') {
      log.warn('request refused: no signature or timestamp');
      return refuse('unsigned', 401);
    }
    // The signature first: it covers the timestamp, so a timestamp refused below is Slack's word against this clock.
    const expected = Buffer.from(
      `v0=${createHmac('sha256', this.o.signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
    );
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      log.warn('request refused: the signature does not verify');
      return refuse('bad_signature', 401);
    }
    const now = this.now();
    const skewSeconds = Math.round(now / 1000 - timestamp);
    if (Math.abs(now - timestamp * 1000) > WINDOW_MS) {
      log.warn(
        { skewSeconds },
        `request refused: its timestamp is more than 5 minutes ${skewSeconds > 0 ? 'before' : 'after'} this replica's clock`,
      );
      return refuse(skewSeconds > 0 ? 'stale_timestamp' : 'future_timestamp', 401, skewSeconds);
    }
    const wrong = shape();
    if (wrong) {
      log.warn({ reason: wrong }, 'request refused: not a Slack payload');
      return refuse('not_a_payload', 400);
    }
    if (!once()) {
      this.observe('accepted');
      return { ok: true };
    }
    if (this.recent.has(signature) || !(await this.firstAcrossReplicas(signature))) {
      // Slack may retry an event within the same second, signed the same: it was accepted once, so it is acknowledged and not handled again.
      if (headers['x-slack-retry-num'] !== undefined) {
        log.info(
          { retry: headers['x-slack-retry-num'] },
          'a retried event already accepted: acknowledged, not handled again',
        );
        return { ok: false, retried: true };
      }
      log.warn('request refused: a replay of a request already accepted');
      return refuse('replay', 401);
    }
    this.recent.set(signature, true);
    this.observe('accepted');
    return { ok: true };
  }

  private async firstAcrossReplicas(signature: string): Promise<boolean> {
    if (!this.o.firstSeen) return true;
    try {
      return await this.o.firstSeen(`request:${signature}`, WINDOW_MS);
    } catch (error) {
      // The store is down: this replica's memory still refuses its own replays, and commands keep working.
      this.o.log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not check a request for replay in the store; checked on this replica only',
      );
      return true;
    }
  }
}

/** Reads a body of at most `limit` bytes; undefined when it is larger (the request is then destroyed). */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface GuardOptions {
  /** The rule every signed request passes (shared with /mcp). */
  signed: SignedRequests;
  log: Logger;
  path?: string;
  /** Told of the refusals before the signature is checked (too large, unreadable). */
  observe?: GuardObserve;
}

/** Wraps Bolt's request listener with the guard. */
export function guardRequests(next: Listener, options: GuardOptions): Listener {
  const { log, signed } = options;
  const path = options.path ?? '/slack/events';
  const observe = options.observe ?? (() => {});
  const answer = (res: ServerResponse, status: number): false => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end();
    return false;
  };

  const check = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const raw = await readBody(req);
    if (!raw) {
      log.warn('request refused: body over 4 MB');
      observe('too_large');
      return answer(res, 413);
    }
    (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
    const body = raw.toString('utf8');
    const contentType = req.headers['content-type'];
    const form = isForm(contentType) ? parseQuery(body) : undefined;
    if (form?.ssl_check === '1') {
      // Slack's unsigned SSL check: Bolt gets ssl_check alone, never whatever else came with it.
      (req as IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.from('ssl_check=1');
      return true;
    }
    const verdict = await signed.judge(req.headers, body, { shape: () => checkShape(contentType, body, form) });
    if (verdict.ok) return true;
    return answer(res, 'retried' in verdict ? 200 : verdict.status);
  };

  return (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'POST' || pathname !== path) return next(req, res);
    check(req, res).then(
      (ok) => {
        if (ok) next(req, res);
      },
      (error: unknown) => {
        log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'request refused: it could not be read',
        );
        if (!res.headersSent) {
          observe('unreadable');
          answer(res, 400);
        }
      },
    );
  };
}
