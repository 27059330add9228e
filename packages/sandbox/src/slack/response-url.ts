/**
 * response_url endpoints at `POST /response/<id>`, behaving like Slack's:
 * each URL works 5 times within 30 minutes (then 404 `used_url` / `expired_url`);
 * `replace_original` replaces the message the URL belongs to, `delete_original` deletes
 * it, `response_type: in_channel` posts for everyone, anything else is ephemeral to the
 * user who ran the command or clicked. Invalid blocks are refused with 400.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toJsonPointerMessage, validateMessage, validateMessageText } from '@lookout/slack-rules/validate';
import { contentType, parseForm, readBody, sendJson, sendText } from './http-util.js';
import { isRecord, type Json } from './types.js';
import type { Message, Workspace } from './workspace.js';

export interface ResponseUrl {
  id: string;
  url: string;
  kind: 'command' | 'interaction';
  channel: string;
  /** The user who ran the command or clicked: ephemeral responses go to them. */
  user: string;
  createdAt: number;
  uses: number;
  /** For an interaction: the message the element was on. */
  originalTs?: string;
  /** The last message posted or replaced through this URL (for a command: its "original"). */
  lastTs?: string;
  /** Responses to an interaction in a thread stay in that thread. */
  threadTs?: string;
}

export interface ResponseLogEntry {
  id: string;
  at: number;
  status: number;
  error?: string;
  reasons?: string[];
  body: unknown;
  /** The message posted, replaced or deleted, if any. */
  ts?: string;
}

/** A message as response_url and ack bodies carry it. */
export interface ResponseMessage {
  text?: unknown;
  blocks?: unknown;
  attachments?: unknown;
  response_type?: unknown;
  replace_original?: unknown;
  delete_original?: unknown;
  thread_ts?: unknown;
}

export type ResponseOutcome =
  { ok: true; message?: Message; deleted?: string } | { ok: false; status: number; error: string; reasons?: string[] };

export interface ResponseUrlOptions {
  maxUses?: number;
  ttlMs?: number;
}

const MAX_LOG = 1000;

function truthy(v: unknown): boolean {
  return v === true || v === 'true';
}

export class ResponseUrls {
  readonly log: ResponseLogEntry[] = [];
  private readonly urls = new Map<string, ResponseUrl>();
  private readonly maxUses: number;
  private readonly ttlMs: number;

  constructor(
    private readonly ws: Workspace,
    private readonly baseUrl: () => string,
    options: ResponseUrlOptions = {},
  ) {
    this.maxUses = options.maxUses ?? 5;
    this.ttlMs = options.ttlMs ?? 30 * 60 * 1000;
  }

  create(input: {
    kind: ResponseUrl['kind'];
    channel: string;
    user: string;
    originalTs?: string;
    threadTs?: string;
  }): ResponseUrl {
    const id = randomBytes(16).toString('hex');
    const record: ResponseUrl = {
      id,
      url: `${this.baseUrl()}/response/${id}`,
      kind: input.kind,
      channel: input.channel,
      user: input.user,
      createdAt: this.ws.now(),
      uses: 0,
      ...(input.originalTs ? { originalTs: input.originalTs } : {}),
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
    };
    this.urls.set(id, record);
    return record;
  }

  get(idOrUrl: string): ResponseUrl | undefined {
    const marker = '/response/';
    const at = idOrUrl.indexOf(marker);
    return this.urls.get(at >= 0 ? idOrUrl.slice(at + marker.length) : idOrUrl);
  }

  async handle(id: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record = this.urls.get(id);
    const finish = (status: number, body: unknown, entry: Partial<ResponseLogEntry> = {}): void => {
      this.log.push({ id, at: this.ws.now(), status, body, ...entry });
      if (this.log.length > MAX_LOG) this.log.splice(0, this.log.length - MAX_LOG);
    };
    if (!record) {
      finish(404, null, { error: 'no_service' });
      return sendText(res, 404, 'no_service');
    }
    if (this.ws.now() - record.createdAt > this.ttlMs) {
      finish(404, null, { error: 'expired_url' });
      return sendText(res, 404, 'expired_url');
    }
    if (record.uses >= this.maxUses) {
      finish(404, null, { error: 'used_url' });
      return sendText(res, 404, 'used_url');
    }
    let body: unknown;
    try {
      const raw = await readBody(req);
      if (contentType(req) === 'application/x-www-form-urlencoded') {
        body = JSON.parse(parseForm(raw).payload ?? '');
      } else {
        body = JSON.parse(raw);
      }
    } catch {
      finish(400, null, { error: 'invalid_payload' });
      return sendText(res, 400, 'invalid_payload');
    }
    if (!isRecord(body)) {
      finish(400, body, { error: 'invalid_payload' });
      return sendText(res, 400, 'invalid_payload');
    }
    const outcome = this.respond(record, body, { countUse: true });
    if (!outcome.ok) {
      finish(outcome.status, body, { error: outcome.error, ...(outcome.reasons ? { reasons: outcome.reasons } : {}) });
      if (outcome.reasons) {
        return sendJson(res, outcome.status, {
          ok: false,
          error: outcome.error,
          errors: outcome.reasons,
          response_metadata: { messages: outcome.reasons.map(toJsonPointerMessage) },
        });
      }
      return sendText(res, outcome.status, outcome.error);
    }
    const ts = outcome.message?.ts ?? outcome.deleted;
    finish(200, body, ts ? { ts } : {});
    sendText(res, 200, 'ok');
  }

  /**
   * Applies one response to the workspace. Also used for a slash command's ack body
   * (`countUse: false`, no replace/delete), which Slack shows the same way.
   */
  respond(
    record: ResponseUrl,
    body: ResponseMessage,
    options: { countUse: boolean; via?: Message['via'] },
  ): ResponseOutcome {
    const original = record.kind === 'interaction' ? record.originalTs : record.lastTs;
    if (options.countUse && truthy(body.delete_original)) {
      record.uses += 1;
      if (original && this.ws.message(record.channel, original)) {
        this.ws.remove(record.channel, original);
        if (record.lastTs === original) delete record.lastTs;
        return { ok: true, deleted: original };
      }
      return { ok: true };
    }
    if (body.blocks !== undefined && !Array.isArray(body.blocks))
      return { ok: false, status: 400, error: 'invalid_blocks_format' };
    if (body.attachments !== undefined && !Array.isArray(body.attachments))
      return { ok: false, status: 400, error: 'invalid_attachments' };
    const blocks = body.blocks as unknown[] | undefined;
    const attachments = body.attachments as unknown[] | undefined;
    const text = validateMessageText(body.text, blocks, attachments);
    if (!text.ok) return { ok: false, status: 400, error: text.error };
    const checked = validateMessage({ blocks, attachments });
    if (!checked.ok) return { ok: false, status: 400, error: checked.error, reasons: checked.reasons };
    if (options.countUse) record.uses += 1;

    const target =
      options.countUse && truthy(body.replace_original) && original
        ? this.ws.message(record.channel, original)
        : undefined;
    if (target) {
      const updated = this.ws.update(record.channel, target.ts, {
        text: text.text,
        blocks: blocks ?? [],
        attachments: attachments ?? [],
      });
      if (updated) {
        record.lastTs = updated.ts;
        return { ok: true, message: updated };
      }
    }
    const inChannel = body.response_type === 'in_channel';
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : record.threadTs;
    const message = this.ws.post({
      channel: record.channel,
      text: text.text,
      blocks,
      attachments,
      via: options.via ?? 'response_url',
      ephemeralTo: inChannel ? undefined : record.user,
      invokedBy: record.user,
      threadTs: threadTs && this.ws.message(record.channel, threadTs) ? threadTs : undefined,
    });
    record.lastTs = message.ts;
    return { ok: true, message };
  }

  /** Drops every URL (tests). */
  reset(): void {
    this.urls.clear();
    this.log.length = 0;
  }

  /** Every URL issued, newest last. */
  all(): ResponseUrl[] {
    return [...this.urls.values()];
  }

  static isMessageBody(body: unknown): body is Json & ResponseMessage {
    return isRecord(body) && (body.text !== undefined || body.blocks !== undefined || body.attachments !== undefined);
  }
}
