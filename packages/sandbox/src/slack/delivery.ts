/**
 * Sends requests to the app's request URL exactly as Slack does: slash commands as
 * signed form posts, interactions as a signed form field `payload` holding JSON. Each
 * delivery records its HTTP status, body and ack time; the answer is then applied as
 * Slack would (a slash command's ack message shown ephemerally, a view_submission's
 * `response_action` carried out). An answer later than the ack deadline (3 s) is a
 * timeout: the user sees `operation_timeout` and the late answer is ignored.
 */
import { validateView } from '@lookout/slack-rules/validate';
import { ResponseUrls, type ResponseUrl } from './response-url.js';
import { isRecord, SlackError, type Delivery, type Json } from './types.js';
import { apiMessage, apiView } from './api-objects.js';
import { SLACKBOT } from './seeds.js';
import { Transport, type DeliveryOptions } from './transport.js';
import type { Channel, Message, SlackUser, View } from './workspace.js';

export class Deliverer extends Transport {
  private nextEventId = 1;

  private userPayload(user: SlackUser): Json {
    return { id: user.id, username: user.name, name: user.name, team_id: this.ws.team.id };
  }

  /**
   * An interaction's organisation, and whether the app is installed org-wide: Enterprise Grid payloads name the
   * organisation (https://api.slack.com/enterprise/apps/reference, "is_enterprise_install" in every payload).
   */
  private get grid(): Json {
    const e = this.ws.team.enterprise;
    return { enterprise: e ? { id: e.id, name: e.name } : null, is_enterprise_install: this.ws.orgWide };
  }

  private get teamPayload(): Json {
    return { id: this.ws.team.id, domain: this.ws.team.domain };
  }

  /** A Slackbot ephemeral, the way Slack tells a user that a command failed. */
  private notice(channel: string, user: string, text: string): void {
    this.ws.post({ channel, user: SLACKBOT, text, ephemeralTo: user, via: 'notice' });
  }

  async slashCommand(
    input: { channel: Channel; user: SlackUser; command: string; text: string },
    options: DeliveryOptions = {},
  ): Promise<Delivery> {
    const { channel, user, command, text } = input;
    const responseUrl = this.config.responseUrls.create({ kind: 'command', channel: channel.id, user: user.id });
    const triggerId = this.ws.issueTrigger(user.id);
    const fields: Record<string, string> = {
      token: this.config.verificationToken,
      team_id: this.ws.team.id,
      team_domain: this.ws.team.domain,
      channel_id: channel.id,
      channel_name: channel.name,
      user_id: user.id,
      user_name: user.name,
      command,
      text,
      api_app_id: this.ws.bot.appId,
      ...(this.ws.team.enterprise
        ? { enterprise_id: this.ws.team.enterprise.id, enterprise_name: this.ws.team.enterprise.name }
        : {}),
      is_enterprise_install: String(this.ws.orgWide),
      response_url: responseUrl.url,
      trigger_id: triggerId,
    };
    const body = new URLSearchParams(fields).toString();
    const fail = (d: Delivery): void =>
      this.notice(channel.id, user.id, `${command} failed with the error "${d.error ?? 'dispatch_failed'}"`);
    return this.send(
      'slash_command',
      body,
      fields,
      options,
      { responseUrl, triggerId },
      {
        onFailure: fail,
        onAnswer: (d) => {
          if (d.status < 200 || d.status >= 300) {
            d.error = 'dispatch_failed';
            return fail(d);
          }
          const ack = ackMessage(d);
          if (!ack) return;
          const outcome = this.config.responseUrls.respond(responseUrl, ack, { countUse: false, via: 'ack' });
          if (!outcome.ok) {
            d.error = outcome.error;
            fail(d);
          }
        },
      },
    );
  }

  /** block_actions from a message (`message`) or from a modal (`view`). */
  async blockActions(
    input: { user: SlackUser; actions: Json[] } & (
      { message: Message; view?: undefined } | { view: View; message?: undefined }
    ),
    options: DeliveryOptions = {},
  ): Promise<Delivery> {
    const { user, actions } = input;
    const triggerId = this.ws.issueTrigger(user.id);
    const payload: Json = {
      type: 'block_actions',
      user: this.userPayload(user),
      api_app_id: this.ws.bot.appId,
      token: this.config.verificationToken,
    };
    let responseUrl: ResponseUrl | undefined;
    if (input.message) {
      const m = input.message;
      const channel = this.ws.channels.get(m.channel);
      const isReply = m.thread_ts !== undefined && m.thread_ts !== m.ts;
      payload.container = {
        type: 'message',
        message_ts: m.ts,
        channel_id: m.channel,
        is_ephemeral: m.ephemeralTo !== undefined,
        ...(isReply ? { thread_ts: m.thread_ts } : {}),
      };
      payload.trigger_id = triggerId;
      payload.team = this.teamPayload;
      Object.assign(payload, this.grid);
      payload.channel = { id: m.channel, name: channel?.name ?? '' };
      if (!m.ephemeralTo) payload.message = apiMessage(m, this.ws.team.id);
      payload.state = { values: JSON.parse(JSON.stringify(m.state)) as Json };
      responseUrl = this.config.responseUrls.create({
        kind: 'interaction',
        channel: m.channel,
        user: user.id,
        originalTs: m.ts,
        ...(m.thread_ts ? { threadTs: m.thread_ts } : {}),
      });
      payload.response_url = responseUrl.url;
    } else {
      const view = input.view;
      payload.container = { type: 'view', view_id: view.id };
      payload.trigger_id = triggerId;
      payload.team = this.teamPayload;
      Object.assign(payload, this.grid);
      payload.view = apiView(view);
    }
    payload.actions = actions;
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(
      'block_actions',
      body,
      payload,
      options,
      { responseUrl, triggerId },
      {
        onAnswer: (d) => {
          if (d.status < 200 || d.status >= 300) d.error = 'dispatch_failed';
        },
      },
    );
  }

  async viewSubmission(input: { view: View; user: SlackUser }, options: DeliveryOptions = {}): Promise<Delivery> {
    const { view, user } = input;
    const triggerId = this.ws.issueTrigger(user.id);
    const payload: Json = {
      type: 'view_submission',
      team: this.teamPayload,
      user: this.userPayload(user),
      api_app_id: this.ws.bot.appId,
      token: this.config.verificationToken,
      trigger_id: triggerId,
      view: apiView(view),
      response_urls: [],
      ...this.grid,
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(
      'view_submission',
      body,
      payload,
      options,
      { triggerId },
      {
        onAnswer: (d) => {
          if (d.status < 200 || d.status >= 300) {
            d.error = 'dispatch_failed';
            return;
          }
          this.applyViewResponse(d, view);
        },
      },
    );
  }

  async viewClosed(
    input: { view: View; user: SlackUser; isCleared: boolean },
    options: DeliveryOptions = {},
  ): Promise<Delivery> {
    const payload: Json = {
      type: 'view_closed',
      team: this.teamPayload,
      user: this.userPayload(input.user),
      api_app_id: this.ws.bot.appId,
      token: this.config.verificationToken,
      view: apiView(input.view),
      is_cleared: input.isCleared,
      ...this.grid,
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(
      'view_closed',
      body,
      payload,
      options,
      {},
      {
        onAnswer: (d) => {
          if (d.status < 200 || d.status >= 300) d.error = 'dispatch_failed';
        },
      },
    );
  }

  /** Carries out a view_submission ack: errors, update, push, clear; anything else closes the view. */
  private applyViewResponse(d: Delivery, view: View): void {
    const ack = isRecord(d.json) ? d.json : undefined;
    const action = ack?.response_action;
    try {
      if (action === undefined) {
        this.ws.closeView(view.id);
      } else if (action === 'errors') {
        if (!isRecord(ack?.errors)) throw new SlackError('invalid_response_action');
        const errors: Record<string, string> = {};
        const inputIds = new Set(view.blocks.filter((b) => b.type === 'input').map((b) => String(b.block_id)));
        for (const [blockId, message] of Object.entries(ack.errors)) {
          if (!inputIds.has(blockId))
            throw new SlackError('invalid_response_action', { reasons: [`errors.${blockId}: is not an input block`] });
          errors[blockId] = String(message);
        }
        this.ws.setViewErrors(view.id, errors);
      } else if (action === 'update' || action === 'push') {
        const checked = validateView(ack?.view);
        if (!checked.ok) throw new SlackError(checked.error, { reasons: checked.reasons });
        const next = ack?.view as Json;
        if (action === 'update') this.ws.updateView(view.id, next);
        else this.ws.pushView(view.user, next);
      } else if (action === 'clear') {
        this.ws.closeView(view.id, { all: true });
      } else {
        throw new SlackError('invalid_response_action');
      }
    } catch (error) {
      if (!(error instanceof SlackError)) throw error;
      d.error = error.code;
      const reasons = error.extra.reasons;
      if (Array.isArray(reasons)) d.reasons = reasons.map(String);
    }
  }

  /**
   * An Events API event (`event_callback`), as JSON, signed. Like Slack, an event the app
   * does not answer with 2xx within the ack deadline is sent again, up to 3 times, with
   * `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`; every attempt is returned.
   */
  async event(event: Json, options: DeliveryOptions = {}): Promise<Delivery[]> {
    const eventId = `Ev${(this.nextEventId++).toString(36).toUpperCase().padStart(8, '0')}`;
    const payload: Json = {
      token: this.config.verificationToken,
      team_id: this.ws.team.id,
      api_app_id: this.ws.bot.appId,
      event: { ...event, event_ts: `${(Date.now() / 1000).toFixed(6)}` },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      ...(this.ws.team.enterprise ? { enterprise_id: this.ws.team.enterprise.id } : {}),
      authorizations: [
        {
          enterprise_id: this.ws.team.enterprise?.id ?? null,
          team_id: this.ws.team.id,
          user_id: this.ws.bot.userId,
          is_bot: true,
          is_enterprise_install: this.ws.orgWide,
        },
      ],
    };
    const body = JSON.stringify(payload);
    const delays = this.config.eventRetryDelaysMs ?? [0, 60_000, 300_000];
    const attempts: Delivery[] = [];
    let reason = '';
    for (let n = 0; n <= delays.length; n++) {
      if (n > 0) await new Promise((r) => setTimeout(r, delays[n - 1]));
      const retry: Record<string, string> =
        n > 0 ? { 'x-slack-retry-num': String(n), 'x-slack-retry-reason': reason } : {};
      const d = await this.send(
        'event',
        body,
        payload,
        options,
        {},
        {},
        { contentType: 'application/json', headers: retry },
      );
      if (n > 0) d.retryNum = n;
      attempts.push(d);
      if (!d.timedOut && d.status >= 200 && d.status < 300) break;
      reason = d.timedOut ? 'http_timeout' : d.status === 0 ? 'connection_failed' : 'http_error';
    }
    return attempts;
  }

  /** The check Slack makes when a request URL is set: the app must echo `challenge`. */
  async urlVerification(challenge: string, options: DeliveryOptions = {}): Promise<Delivery> {
    const payload: Json = { token: this.config.verificationToken, challenge, type: 'url_verification' };
    return this.send(
      'url_verification',
      JSON.stringify(payload),
      payload,
      options,
      {},
      {},
      { contentType: 'application/json' },
    );
  }
}

/** A slash command's ack as a message: JSON with text/blocks, or a non-empty plain-text body. */
function ackMessage(d: Delivery): Json | undefined {
  if (ResponseUrls.isMessageBody(d.json)) return d.json;
  if (d.json === undefined && d.body.trim() !== '') return { text: d.body };
  return undefined;
}
