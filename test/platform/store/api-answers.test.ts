import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { MarketingRequest } from '../../../src/kernel/query.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { ANSWER_FRESH_MS, questionOf, SharedFetcher } from '../../../src/platform/api/shared-fetcher.js';
import { ApiAnswerRepo, pruneAnswers } from '../../../src/platform/store/api-answers.js';
import type { Db, Queryable } from '../../../src/platform/store/index.js';
import { describeEachDb, type TestDb } from '../../support/db.js';
import { until } from '../../support/until.js';

const API_KEY = 'shared-answers-test-key';
const DATA_NOW = new Date('2026-11-20T12:00:00Z');
const ASKED: MarketingRequest = { startDate: '2026-11-13', endDate: '2026-11-19', page: 1, limit: 10 };

let demo: DemoApi;
beforeAll(async () => {
  demo = await startDemoApi({ apiKey: API_KEY, now: () => DATA_NOW });
});
afterAll(() => demo?.close());

/** The sources requests the demo API received. */
const sourcesAsked = () => demo.requests.filter((r) => r.path.endsWith('/traffic/sources')).length;
const QUESTION = questionOf('sources', ASKED);

describeEachDb('answers shared by replicas', (t) => {
  /** The app's clock, moved by the tests; every replica reads it. */
  let clock = Date.parse('2026-11-20T09:00:00Z');
  const now = () => new Date(clock);
  const closing: AnalyticsApi[] = [];

  beforeEach(() => {
    demo.setFaults({});
    demo.resetRequests();
  });
  afterAll(async () => {
    for (const api of closing) await api.close();
  });

  /** One replica: its own API client (no single-flight with the others), its fetcher, its share of the store. */
  async function replica(name: string, options: { db?: Queryable; claimMs?: number; now?: () => Date } = {}) {
    const db = options.db ?? (await sibling(t));
    const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: API_KEY, retry: { retries: 0 } });
    closing.push(api);
    const answers = new ApiAnswerRepo(db, {
      owner: name,
      now: options.now ?? now,
      freshMs: ANSWER_FRESH_MS,
      claimMs: options.claimMs ?? 30_000,
    });
    return { account: api.account, answers, fetcher: new SharedFetcher(api, { now, shared: answers }) };
  }

  it('two replicas asking one question at once make one request, and both have its answer', async () => {
    const [a, b] = [await replica('replica-a'), await replica('replica-b')];
    demo.setFaults({ latencyMs: 150 });
    const [fromA, fromB] = await Promise.all([a.fetcher.report('sources', ASKED), b.fetcher.report('sources', ASKED)]);
    expect(sourcesAsked()).toBe(1);
    expect(fromB).toEqual(fromA);
    expect(fromA.length).toBeGreaterThan(0);
    expect(a.fetcher.calls + b.fetcher.calls).toBe(1);
    // The one that did not ask read the other's claim first, then its answer.
    const waiter = a.fetcher.calls === 0 ? a : b;
    expect(waiter.answers.stats).toMatchObject({ read: 1, written: 0 });
    expect(waiter.answers.stats.waits).toBeGreaterThan(0);
  });

  it('serves another replica within the answer’s minute, and asks again after it', async () => {
    const [a, b, c] = [await replica('replica-a'), await replica('replica-b'), await replica('replica-c')];
    const first = await a.fetcher.report('sources', ASKED);
    clock += 50_000;
    expect(await b.fetcher.report('sources', ASKED)).toEqual(first);
    expect(sourcesAsked()).toBe(1);
    // b keeps it in memory only for the 10 s left of a's minute: 11 s on, b asks the API.
    clock += 11_000;
    await b.fetcher.report('sources', ASKED);
    expect(sourcesAsked()).toBe(2);
    expect(b.fetcher.calls).toBe(1);
    // b's answer is the fresh one now; c reads it.
    await c.fetcher.report('sources', ASKED);
    expect(sourcesAsked()).toBe(2);
    expect(c.fetcher.calls).toBe(0);
  });

  it('serves a question asked as of a digest slot with any answer asked since the slot, however old, in memory and on another replica', async () => {
    const [a, b] = [await replica('replica-a'), await replica('replica-b')];
    const slot = clock;
    clock += 2_000;
    const first = await a.fetcher.report('sources', ASKED, slot);
    clock += 4 * 60_000;
    expect(await a.fetcher.report('sources', ASKED, slot)).toEqual(first);
    expect(await b.fetcher.report('sources', ASKED, slot)).toEqual(first);
    expect(sourcesAsked()).toBe(1);
    // Asked as of now (a command), or as of a later slot, the four-minute-old answer does not serve.
    await b.fetcher.report('sources', ASKED);
    expect(sourcesAsked()).toBe(2);
    await a.fetcher.report('sources', ASKED, clock);
    expect(sourcesAsked()).toBe(2); // b's answer, just asked, is fresh
    clock += 2 * 60_000;
    await a.fetcher.report('sources', ASKED, clock - 1_000);
    expect(sourcesAsked()).toBe(3);
  });

  it('never shares a failed answer: the next replica asks for itself', async () => {
    const [a, b] = [await replica('replica-a'), await replica('replica-b')];
    demo.setFaults({ status500Until: 1 });
    await expect(a.fetcher.report('sources', ASKED)).rejects.toThrow();
    expect(await b.fetcher.report('sources', ASKED)).not.toHaveLength(0);
    expect(sourcesAsked()).toBe(2);
  });

  it('hands a question on when the request of the replica asking it fails meanwhile', async () => {
    const [a, b] = [await replica('replica-a'), await replica('replica-b')];
    demo.setFaults({ latencyMs: 300, status500Until: 1 });
    const asking = a.fetcher.report('sources', ASKED);
    // b starts once a holds the claim.
    await until(async () => (await claims(t.db)).length === 1, 'replica a to claim the question');
    const [fromA, fromB] = await Promise.allSettled([asking, b.fetcher.report('sources', ASKED)]);
    expect(fromA.status).toBe('rejected');
    expect(fromB.status === 'fulfilled' && fromB.value.length).toBeGreaterThan(0);
    expect(sourcesAsked()).toBe(2);
    expect(b.fetcher.calls).toBe(1);
  });

  it('takes over a claim its replica left (stopped mid-request) once the claim is older than it may be', async () => {
    const b = await replica('replica-b');
    await t.db.query(`INSERT INTO api_answers (account, question, asked_by, asked_at) VALUES ($1, $2, 'gone/x', $3)`, [
      b.account,
      QUESTION,
      now(),
    ]);
    clock += 30_001;
    expect(await b.fetcher.report('sources', ASKED)).not.toHaveLength(0);
    expect(sourcesAsked()).toBe(1);
    expect(b.fetcher.calls).toBe(1);
  });

  it('keeps the claim of a request slower than the claim may stay unrenewed: the other replica waits for its answer', async () => {
    // Real time here: the claim is renewed by a timer, and judged by the clock it is renewed with.
    // Renewed every second, taken over after 3 s without: a busy machine may stall the renewal by 2 s.
    const realTime = { claimMs: 3_000, now: () => new Date() };
    const [a, b] = [await replica('replica-a', realTime), await replica('replica-b', realTime)];
    demo.setFaults({ latencyMs: 7_000 });
    const asking = a.fetcher.report('sources', ASKED);
    await until(async () => (await claims(t.db)).length === 1, 'replica a to claim the question');
    const fromB = await b.fetcher.report('sources', ASKED);
    expect(fromB).toEqual(await asking);
    expect(sourcesAsked()).toBe(1);
    expect(b.answers.stats).toMatchObject({ read: 1, takenOver: 0 });
    expect(a.answers.stats.queries).toBeGreaterThan(2); // looked and claimed, renewed, wrote
  });

  it('makes no store query for an answer in the replica’s memory', async () => {
    const a = await replica('replica-a');
    await a.fetcher.report('sources', ASKED);
    const { queries } = a.answers.stats;
    expect(queries).toBe(2); // looked and claimed at once, wrote
    await a.fetcher.report('sources', ASKED);
    expect(a.answers.stats.queries).toBe(queries);
  });

  it('forgets an answer on every replica, asks the API when the store fails, and prunes what is of no more use', async () => {
    const [a, b] = [await replica('replica-a'), await replica('replica-b')];
    await a.fetcher.report('sources', ASKED);
    await a.answers.forget(a.account, [QUESTION]);
    await b.fetcher.report('sources', ASKED);
    expect(sourcesAsked()).toBe(2);

    const down = await replica('replica-down', { db: { query: () => Promise.reject(new Error('store down')) } });
    expect(await down.fetcher.report('sources', ASKED)).not.toHaveLength(0);
    expect(down.answers.stats.errors).toBe(1);
    expect(sourcesAsked()).toBe(3);

    clock += ANSWER_FRESH_MS;
    expect(await pruneAnswers(t.db, new Date(clock - ANSWER_FRESH_MS))).toBe(0);
    clock += 1;
    expect(await pruneAnswers(t.db, new Date(clock - ANSWER_FRESH_MS))).toBe(1);
  });
});

/** PostgreSQL: another pool on the same schema (another replica); PGlite is one process, so its one Db. */
async function sibling(t: TestDb): Promise<Db> {
  return t.kind === 'postgres' ? t.openSibling() : t.db;
}

async function claims(db: Queryable) {
  const { rows } = await db.query<{ asked_by: string }>('SELECT asked_by FROM api_answers WHERE body IS NULL');
  return rows;
}
