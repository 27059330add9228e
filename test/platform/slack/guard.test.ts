import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature } from '@lookout/sandbox/slack';
import { sandbox, type Sandbox } from '../../support/sandbox.js';
import { stillAnswers } from '../../support/answers.js';

/**
 * Correctly signed requests sent straight to the request URL, as someone holding one
 * captured request could: replays, timestamps from the future, bodies that are not
 * Slack payloads, and anything at all that fast-check makes up.
 */
let box: Sandbox & { logs: string[] };

beforeAll(async () => {
  box = await sandbox({ scheduler: false });
});
afterAll(() => box?.stop());

async function send(
  body: string,
  options: { type?: string; timestamp?: number; headers?: Record<string, string> } = {},
): Promise<number> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const res = await fetch(box.lookout.requestUrl!, {
    method: 'POST',
    headers: {
      'content-type': options.type ?? 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': computeSignature(box.secrets.signingSecret, body, timestamp),
      ...options.headers,
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

function slash(text: string): string {
  return new URLSearchParams({
    token: 'x',
    team_id: 'T_LOOKOUT',
    channel_id: 'C_GENERAL',
    channel_name: 'general',
    user_id: 'U_ALICE',
    user_name: 'alice',
    command: '/traffic',
    text,
    response_url: `${box.slack.url}/response/none`,
    trigger_id: `t.${Math.random()}`,
  }).toString();
}

const digests = async () => (await box.lookout.store.digests.listAll('T_LOOKOUT')).length;

describe('the request guard', () => {
  it('refuses a replayed request: five sends of one digest add make one digest', async () => {
    const before = await digests();
    const body = slash('digest add #general daily 09:00 UTC sources');
    const timestamp = Math.floor(Date.now() / 1000);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await send(body, { timestamp }));
    expect(statuses).toEqual([200, 401, 401, 401, 401]);
    await box.slack.waitFor(() => undefined, 300).catch(() => undefined);
    expect(await digests()).toBe(before + 1);
    expect(box.logs.filter((l) => l.includes('a replay of a request already accepted'))).toHaveLength(4);
  });

  it("lets Slack's own retries through: they are signed afresh", async () => {
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T_LOOKOUT',
      event: { type: 'app_mention', user: 'U_ALICE', text: 'hi', ts: '1.2' },
    });
    const now = Math.floor(Date.now() / 1000);
    expect(await send(body, { type: 'application/json', timestamp: now - 2 })).not.toBe(401);
    expect(
      await send(body, {
        type: 'application/json',
        timestamp: now,
        headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
      }),
    ).not.toBe(401);
  });

  it('refuses timestamps an hour and a year in the future, and changes nothing', async () => {
    const before = await digests();
    // Just past the 5-minute window, with room for a busy machine between stamping and checking.
    const now = () => Math.floor(Date.now() / 1000);
    for (const ahead of [3_600, 365 * 86_400, 330]) {
      expect(await send(slash('digest add #general daily 10:00 UTC pages'), { timestamp: now() + ahead })).toBe(401);
    }
    expect(await send(slash('digest add #general daily 10:00 UTC pages'), { timestamp: now() - 400 })).toBe(401);
    expect(await digests()).toBe(before);
  });

  it('answers a signed payload=null, and other bodies that are not Slack payloads, with 400, and keeps running', async () => {
    for (const body of [
      'payload=null',
      'payload=%5B%5D',
      'payload=%7B%7D',
      'payload=not-json',
      'payload=1&payload=2',
      'hello=world',
    ]) {
      expect(await send(body), body).toBe(400);
    }
    for (const body of ['null', '[]', '"x"', '{"no":"type"}', '{']) {
      expect(await send(body, { type: 'application/json' }), body).toBe(400);
    }
    await stillAnswers(box);
  });

  it("answers Slack's unsigned SSL check with 200 and runs nothing smuggled in with it", async () => {
    const before = await digests();
    const smuggled = `ssl_check=1&${slash('digest add #general daily 11:00 UTC pages')}`;
    const res = await fetch(box.lookout.requestUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: smuggled,
    });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    await box.slack.waitFor(() => undefined, 300).catch(() => undefined);
    expect(await digests()).toBe(before);
  });

  it('refuses a signed command whose fields are not single strings with 400', async () => {
    const before = await digests();
    const doubled = `${slash('digest add #general daily 12:00 UTC pages')}&user_id=U_BOB`;
    expect(await send(doubled)).toBe(400);
    expect(
      await send(slash('digest add #general daily 12:00 UTC pages').replace('command=%2Ftraffic', 'command=traffic')),
    ).toBe(400);
    expect(await digests()).toBe(before);
  });

  it('never answers a correctly signed body with a 5xx, whatever it holds (fast-check)', async () => {
    const bodies = fc.oneof(
      fc.jsonValue().map((v) => ({ body: JSON.stringify(v), type: 'application/json' })),
      fc
        .record(
          {
            type: fc.constantFrom(
              'block_actions',
              'view_submission',
              'shortcut',
              'event_callback',
              'block_suggestion',
              'x',
            ),
          },
          { requiredKeys: ['type'] },
        )
        .chain((base) =>
          fc
            .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
            .map((extra) => ({ ...extra, ...base })),
        )
        .map((payload) => ({
          body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
          type: 'application/x-www-form-urlencoded',
        })),
      fc
        .dictionary(
          fc.constantFrom('command', 'text', 'user_id', 'channel_id', 'payload', 'ssl_check', 'response_url', 'x'),
          fc.string({ maxLength: 20 }),
          { maxKeys: 5 },
        )
        .map((form) => ({ body: new URLSearchParams(form).toString(), type: 'application/x-www-form-urlencoded' })),
    );
    // Button clicks that pass the guard, with every value tampered: the app answers them, never with a 5xx.
    const ACTION_IDS = [
      'report.drill',
      'report.filter',
      'report.inspect',
      'report.next',
      'report.prev',
      'report.range',
      'report.share',
      'report.sort',
      'alert.ack',
      'alert.mute.24h',
      'alert.unmute',
      'alert.details',
      'digest.preview',
      'digest.pause',
      'digest.remove',
      'digest.edit',
    ];
    const clicks = fc
      .record({
        action_id: fc.constantFrom(...ACTION_IDS),
        value: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('1', '-1', '999999', 'q1.x', '{"a":1}')),
        block_id: fc.string({ maxLength: 10 }),
      })
      .map((action) => ({
        type: 'block_actions',
        user: { id: 'U_ALICE' },
        team: { id: 'T_LOOKOUT' },
        channel: { id: 'C_GENERAL' },
        trigger_id: 't.1',
        response_url: `${box.slack.url}/response/none`,
        container: { type: 'message', message_ts: '1.2' },
        message: { ts: '1.2', blocks: [] },
        actions: [{ ...action, type: 'button', action_ts: '1.2' }],
      }))
      .map((payload) => ({
        body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        type: 'application/x-www-form-urlencoded',
      }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(bodies, clicks), async ({ body, type }) => {
        const status = await send(body, { type });
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
    await stillAnswers(box);
  }, 240_000);
});
