import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { channelKey, DeliveryRepo, type DeliveryInput } from '../../../src/platform/deliveries/repo.js';
import { z } from 'zod';
import { defineSubject, Subjects } from '../../../src/platform/deliveries/subject.js';
import { DeliveryWorker } from '../../../src/platform/deliveries/worker.js';
import { webPoster } from '../../../src/platform/slack/poster.js';
import type { Db } from '../../../src/platform/store/db.js';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { describeEachDb } from '../../support/db.js';
import { captureLogs } from '../../support/log-capture.js';

/**
 * The outbox and its worker against the offline Slack, with Slack's faults injected for
 * real: a channel that hangs, 429 with Retry-After, 500s, refusals once and always.
 */
const botToken = `xoxb-${randomBytes(6).toString('hex')}`;
let slack: OfflineSlack;
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  slack = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, rateLimit: false });
  for (const name of ['one', 'two', 'three', 'four', 'sick'])
    slack.workspace.addChannel({ name, id: `C_${name.toUpperCase()}` });
});
afterAll(async () => {
  await slack?.close();
});
afterEach(async () => {
  slack.clearFailures();
  for (const w of workers.splice(0)) await w.stop(1_000);
});

/** What the hooks heard, by delivery id. */
const heard = new Map<number, string>();
const PROBE = defineSubject({
  kind: 'probe',
  payload: z.object({}),
  hooks: {
    async posted(_tx, d, ts) {
      heard.set(d.id, `posted ${ts}`);
    },
    async failed(_tx, d, failure) {
      heard.set(d.id, `failed ${failure.reason}${failure.channel ? ' (channel)' : ''}`);
    },
  },
});
const subjects = new Subjects([PROBE]);

/** A worker posting through a Web API client that gives up after `slackTimeoutMs` (800 ms unless a test needs a call to hang on). */
function worker(
  db: Db,
  owner = 'w1',
  extra: Partial<ConstructorParameters<typeof DeliveryWorker>[0]> = {},
  slackTimeoutMs = 800,
): { worker: DeliveryWorker; logs: string[] } {
  const { logger, lines } = captureLogs('info');
  const client = new WebClient(botToken, {
    slackApiUrl: slack.apiUrl,
    timeout: slackTimeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const w = new DeliveryWorker({
    db,
    poster: async () => webPoster(client),
    owner,
    log: logger,
    subjects,
    heartbeatMs: 200,
    pollMs: 50,
    paceMs: 0,
    ...extra,
  });
  workers.push(w);
  return { worker: w, logs: lines };
}

const message = (text: string) => ({
  text,
  blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text } }],
});

function input(channelId: string, text: string, extra: Partial<DeliveryInput> = {}): DeliveryInput {
  return { team: 'T_LOOKOUT', subject: PROBE, channelId, message: message(text), expiresInMs: 60_000, ...extra };
}

const texts = (channel: string) => slack.messages(channel).map((m) => m.text);

/** Polls `check` until it holds, or fails after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describeEachDb('deliveries', (t) => {
  it('posts every delivery once, in order within each channel, and tells the feature its ts', async () => {
    const repo = new DeliveryRepo(t.db);
    const seen = { one: texts('C_ONE').length, two: texts('C_TWO').length };
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await repo.enqueue(input('C_ONE', `one ${i}`)));
    for (let i = 0; i < 2; i++) ids.push(await repo.enqueue(input('C_TWO', `two ${i}`)));
    const { worker: w } = worker(t.db);
    await w.start();
    await w.drained();
    expect(texts('C_ONE').slice(seen.one)).toEqual(['one 0', 'one 1', 'one 2']);
    expect(texts('C_TWO').slice(seen.two)).toEqual(['two 0', 'two 1']);
    for (const id of ids) {
      const d = (await repo.get(id))!;
      expect(d).toMatchObject({ status: 'posted', attempts: 1, messageTs: expect.any(String) });
      expect(heard.get(id)).toBe(`posted ${d.messageTs}`);
    }
  });

  it('a hanging channel delays only itself, and is posted once Slack answers again', async () => {
    slack.failNext('chat.postMessage', 'hang', 1, { channel: 'C_SICK' });
    const repo = new DeliveryRepo(t.db);
    const sick = await repo.enqueue(input('C_SICK', 'sick 0'));
    const healthy = [await repo.enqueue(input('C_THREE', 'three 0')), await repo.enqueue(input('C_THREE', 'three 1'))];
    // The sick channel's call hangs until the failure is cleared (its client would wait two minutes).
    const { worker: w } = worker(t.db, 'w1', {}, 120_000);
    await w.start();
    await eventually(
      async () => (await Promise.all(healthy.map((id) => repo.get(id)))).every((d) => d?.status === 'posted'),
      30_000,
    );
    expect(texts('C_THREE').slice(-2)).toEqual(['three 0', 'three 1']);
    expect(await repo.get(sick)).toMatchObject({ status: 'sending', attempts: 1 }); // still hanging: it held up no other channel
    slack.clearFailures(); // the hanging call is answered with a 503, and tried again
    await w.drained(30_000);
    expect(await repo.get(sick)).toMatchObject({ status: 'posted' });
    expect(texts('C_SICK').at(-1)).toMatch(/^sick 0/);
  });

  it('a call that hangs past the timeout is tried again, not dropped, and marked as a possible repeat', async () => {
    slack.failNext('chat.postMessage', 'hang', Infinity, { channel: 'C_SICK' });
    const seen = texts('C_SICK').length;
    const repo = new DeliveryRepo(t.db);
    const sick = await repo.enqueue(input('C_SICK', 'sick 0'));
    const { worker: w } = worker(t.db);
    await w.start();
    // The hanging call times out (800 ms) and is tried again later, not dropped.
    await eventually(async () => (await repo.get(sick))?.error === 'timed out', 30_000);
    expect(await repo.get(sick)).toMatchObject({ status: expect.stringMatching(/pending|sending/) });
    slack.clearFailures();
    await w.drained();
    expect(await repo.get(sick)).toMatchObject({ status: 'posted', attempts: expect.any(Number) });
    // A call that timed out may have reached Slack: the retry says it may be a repeat.
    expect(texts('C_SICK').slice(seen)).toEqual([expect.stringMatching(/^sick 0\n\(Sent again after an interruption/)]);
    expect(await repo.get(sick)).toMatchObject({ maybePosted: true });
  });

  it("a 429 is retried no sooner than Slack's Retry-After, and a 500 with backoff", async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 2 }, 1, { channel: 'C_ONE' });
    slack.failNext('chat.postMessage', { status: 500 }, 2, { channel: 'C_TWO' });
    const repo = new DeliveryRepo(t.db);
    const limited = await repo.enqueue(input('C_ONE', 'limited'));
    const broken = await repo.enqueue(input('C_TWO', 'broken'));
    const { worker: w, logs } = worker(t.db);
    const started = Date.now();
    await w.start();
    await w.drained();
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(await repo.get(limited)).toMatchObject({ status: 'posted', attempts: 2 });
    expect(await repo.get(broken)).toMatchObject({ status: 'posted', attempts: 3 });
    expect(
      logs
        .filter((l) => l.includes('delivery failed; retrying'))
        .map((l) => JSON.parse(l).reason)
        .sort(),
    ).toEqual(['HTTP 500', 'HTTP 500', 'ratelimited']);
  });

  it("a 429 moves the channel's next post to Retry-After and ends its bursts: one 429 a channel against a Slack that takes one a second", async () => {
    slack.setRateLimit({ burst: 1, perSecond: 1 });
    try {
      const repo = new DeliveryRepo(t.db);
      for (let i = 0; i < 4; i++) await repo.enqueue(input('C_THREE', `three ${i}`));
      for (let i = 0; i < 4; i++) await repo.enqueue(input('C_FOUR', `four ${i}`));
      const limited: string[] = [];
      const client = new WebClient(botToken, {
        slackApiUrl: slack.apiUrl,
        timeout: 800,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      });
      const poster = webPoster(client);
      const counting = {
        ...poster,
        post: (channel: string, ...rest: [Parameters<typeof poster.post>[1], Parameters<typeof poster.post>[2]?]) =>
          poster.post(channel, ...rest).catch((error: { code?: string }) => {
            if (error.code === 'slack_webapi_rate_limited_error') limited.push(channel);
            throw error;
          }),
      };
      const { worker: w } = worker(t.db, 'w1', { poster: async () => counting, paceMs: 1_000, burst: 3 });
      await w.start();
      await w.drained(30_000);
      // The local bucket allowed a burst of 3; Slack took one: the second post was refused once, and never again.
      expect(limited.sort()).toEqual(['C_FOUR', 'C_THREE']);
      expect(texts('C_THREE').slice(-4)).toEqual(['three 0', 'three 1', 'three 2', 'three 3']);
    } finally {
      slack.setRateLimit(false);
    }
  });

  it("an edit of another delivery's message waits for its post and edits it in place; an edit of one never posted fails without a call, and a reply goes to the top level", async () => {
    const repo = new DeliveryRepo(t.db);
    const parent = await repo.enqueue(input('C_THREE', 'first version'));
    const edit = await repo.enqueue(input('C_THREE', 'second version', { updateOf: parent }));
    const reply = await repo.enqueue(input('C_THREE', 'in its thread', { threadOf: parent }));
    slack.failNext('chat.postMessage', 'not_in_channel', 1, { channel: 'C_FOUR' });
    const refused = await repo.enqueue(input('C_FOUR', 'never posted'));
    const orphan = await repo.enqueue(input('C_FOUR', 'an edit of nothing', { updateOf: refused }));
    const { worker: w } = worker(t.db);
    await w.start();
    await w.drained();
    const posted = (await repo.get(parent))!;
    expect(await repo.get(edit)).toMatchObject({ status: 'posted', messageTs: posted.messageTs, updateOf: parent });
    const shown = slack.thread('C_THREE', posted.messageTs!);
    expect(shown.map((m) => m.text)).toEqual(['second version', 'in its thread']);
    expect(shown[0]!.updates).toBe(1);
    expect(await repo.get(reply)).toMatchObject({ status: 'posted' });
    expect(await repo.get(orphan)).toMatchObject({ status: 'failed', error: 'the message it edits was not posted' });
    expect(heard.get(orphan)).toBe('failed the message it edits was not posted');
    expect(texts('C_FOUR')).not.toContain('an edit of nothing');
    expect(slack.webApi.calls.filter((c) => c.method === 'chat.update' && c.args.channel === 'C_FOUR')).toEqual([]);
  });

  it('pruning keeps a posted message while an edit or a reply of it is still to go', async () => {
    const repo = new DeliveryRepo(t.db);
    const [edited, threaded, done] = [
      await repo.enqueue(input('C_ONE', 'a')),
      await repo.enqueue(input('C_ONE', 'b')),
      await repo.enqueue(input('C_ONE', 'c')),
    ];
    for (const id of [edited, threaded, done]) await repo.markPosted(id, `${id}.0`);
    await repo.enqueue(input('C_ONE', 'a, edited', { updateOf: edited }));
    await repo.enqueue(input('C_ONE', 'on b', { threadOf: threaded }));
    expect(await repo.prune(new Date(Date.now() + 60_000))).toBe(1);
    expect((await repo.get(edited))?.status).toBe('posted');
    expect((await repo.get(threaded))?.status).toBe('posted');
    expect(await repo.get(done)).toBeUndefined();
  });

  it('blocks Slack refuses are posted once more as plain text', async () => {
    slack.failNext('chat.postMessage', 'invalid_blocks', 1, { channel: 'C_ONE' });
    const repo = new DeliveryRepo(t.db);
    const id = await repo.enqueue(input('C_ONE', 'rich', { plain: 'plain version' }));
    const { worker: w } = worker(t.db);
    await w.start();
    await w.drained();
    const posted = slack.messages('C_ONE').find((m) => m.text === 'plain version');
    expect(posted?.blocks ?? []).toEqual([]);
    expect(await repo.get(id)).toMatchObject({ status: 'posted', attempts: 2 });
  });

  it('a channel Slack refuses for good fails with its reason, told to the feature, and harms no other channel', async () => {
    slack.failNext('chat.postMessage', 'not_in_channel', Infinity, { channel: 'C_SICK' });
    slack.failNext('chat.postMessage', 'invalid_blocks', Infinity, { channel: 'C_FOUR' });
    const repo = new DeliveryRepo(t.db);
    const refused = await repo.enqueue(input('C_SICK', 'refused'));
    const unreadable = await repo.enqueue(input('C_FOUR', 'unreadable'));
    const fine = await repo.enqueue(input('C_ONE', 'fine'));
    const { worker: w, logs } = worker(t.db);
    await w.start();
    await w.drained();
    expect(await repo.get(refused)).toMatchObject({ status: 'failed', error: 'not_in_channel', attempts: 1 });
    expect(heard.get(refused)).toBe('failed not_in_channel (channel)');
    expect(await repo.get(unreadable)).toMatchObject({ status: 'failed', error: 'invalid_blocks', attempts: 2 });
    expect(heard.get(unreadable)).toBe('failed invalid_blocks');
    expect(await repo.get(fine)).toMatchObject({ status: 'posted' });
    const line = logs.find((l) => l.includes('delivery failed for good') && l.includes('not_in_channel'));
    expect(JSON.parse(line!)).toMatchObject({ delivery: refused, channel: 'C_SICK', reason: 'not_in_channel' });
  });

  it('gives up once the deadline passes, saying so', async () => {
    slack.failNext('chat.postMessage', { status: 503 }, Infinity, { channel: 'C_TWO' });
    const repo = new DeliveryRepo(t.db);
    const id = await repo.enqueue(input('C_TWO', 'never', { expiresInMs: 1_500 }));
    const { worker: w } = worker(t.db);
    await w.start();
    await w.drained();
    const d = (await repo.get(id))!;
    expect(d.status).toBe('failed');
    expect(d.error).toMatch(/^gave up after \d+ attempts .*HTTP 503$/);
  });

  it('one channel id in two workspaces (a Slack Connect channel) is two channels: one in flight, or held back, in one never holds the other', async () => {
    const repo = new DeliveryRepo(t.db);
    const mine = await repo.enqueue(input('C_ONE', 'mine'));
    await repo.enqueue(input('C_ONE', 'mine, after'));
    const theirs = await repo.enqueue(input('C_ONE', 'theirs', { team: 'T_OTHER' }));
    const held = await repo.claim('r1', { staleMs: 60_000, busy: [channelKey('T_LOOKOUT', 'C_ONE')], limit: 10 });
    expect(held.map((d) => d.id)).toEqual([theirs]);
    const next = await repo.claim('r1', { staleMs: 60_000, busy: [channelKey('T_OTHER', 'C_ONE')], limit: 10 });
    expect(next.map((d) => d.id)).toEqual([mine]);
    // Each workspace's channel has its head in flight: nothing more is claimed until one is done.
    expect(await repo.claim('r2', { staleMs: 60_000, busy: [], limit: 10 })).toEqual([]);
  });

  it('a delivery whose owner stopped heart-beating is taken over and marked as a possible repeat', async () => {
    const repo = new DeliveryRepo(t.db);
    const id = await repo.enqueue(input('C_THREE', 'orphan'));
    expect(await repo.claim('dead', { staleMs: 1_000, busy: [], limit: 10 })).toHaveLength(1);
    const { rows: claimed } = await t.db.query<{ at: Date }>(
      'SELECT heartbeat_at AS at FROM deliveries WHERE id = $1',
      [id],
    );
    const { worker: w, logs } = worker(t.db, 'alive');
    await w.start();
    await w.drained();
    // 'dead' counted as alive for 3 heartbeats (600 ms): the post came no sooner (by the database's clock; load only makes it later).
    const { rows } = await t.db.query<{ ms: number }>(
      'SELECT extract(epoch FROM posted_at - $2::timestamptz) * 1000 AS ms FROM deliveries WHERE id = $1',
      [id, claimed[0]!.at],
    );
    expect(Number(rows[0]!.ms)).toBeGreaterThanOrEqual(3 * 200 - 50);
    const d = (await repo.get(id))!;
    expect(d).toMatchObject({ status: 'posted', owner: 'alive', maybePosted: true, attempts: 2 });
    const posted = slack.messages('C_THREE').find((m) => m.ts === d.messageTs)!;
    expect(posted.text).toMatch(/^orphan\n\(Sent again after an interruption/);
    expect(JSON.stringify(posted.blocks)).toContain('this one is a repeat');
    expect(logs.some((l) => l.includes('marked as a possible repeat'))).toBe(true);
  });

  it('paces each channel on its own: a burst, then one post per interval, while other channels go on', async () => {
    const repo = new DeliveryRepo(t.db);
    for (let i = 0; i < 6; i++) await repo.enqueue(input('C_ONE', `paced ${i}`));
    await repo.enqueue(input('C_TWO', 'other'));
    const { worker: w } = worker(t.db, 'w1', { paceMs: 300, burst: 2 });
    await w.start();
    await w.drained(30_000);
    const { rows } = await t.db.query<{ channel_id: string; ms: number }>(
      "SELECT channel_id, extract(epoch FROM posted_at - min(posted_at) OVER ()) * 1000 AS ms FROM deliveries WHERE channel_id IN ('C_ONE', 'C_TWO') ORDER BY posted_at, id",
    );
    const one = rows.filter((r) => r.channel_id === 'C_ONE').map((r) => Number(r.ms));
    // The other channel did not wait for the paced one: it was posted before the paced channel's last post.
    expect(rows.findIndex((r) => r.channel_id === 'C_TWO')).toBeLessThan(rows.length - 1);
    // After the burst of two, one post per interval: the six posts span at least four intervals (a lower bound, which load only lengthens).
    expect(one).toHaveLength(6);
    expect(one[5]! - one[0]!).toBeGreaterThanOrEqual(4 * 300 - 100);
  });

  it('two replicas post every delivery exactly once, in order, one at a time per channel', async () => {
    const repo = new DeliveryRepo(t.db);
    const channels = ['C_ONE', 'C_TWO', 'C_THREE', 'C_FOUR'];
    const before = new Map(channels.map((c) => [c, slack.messages(c).length]));
    for (let i = 0; i < 10; i++) for (const c of channels) await repo.enqueue(input(c, `${c} ${i}`));
    const second = t.kind === 'postgres' ? await t.openSibling() : t.db;
    const a = worker(t.db, 'a').worker;
    const b = worker(second, 'b').worker;
    await a.start();
    await b.start();
    await Promise.all([a.drained(), b.drained()]);
    for (const c of channels) {
      const fresh = texts(c).slice(before.get(c));
      expect(fresh).toEqual(Array.from({ length: 10 }, (_, i) => `${c} ${i}`));
    }
    const owners = await t.db.query<{ owner: string }>("SELECT DISTINCT owner FROM deliveries WHERE status = 'posted'");
    expect(owners.rows.length).toBeGreaterThan(0);
  });
});
