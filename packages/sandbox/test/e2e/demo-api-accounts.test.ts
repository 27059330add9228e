import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_VISITORS } from '../../src/demo-api/dataset.js';
import { startDemoApi, type DemoApi } from '../../src/demo-api/server.js';
import { demoVisitorsOf, SOFTWARE_SITE } from '../../src/demo-api/site.js';

const KEY_A = 'k-a-7f1c0e-accounts-test';
const KEY_B = 'k-b-92d4aa-accounts-test';
const NOW = new Date('2026-11-20T13:45:12.000Z');
const LAST_7 = 'start_date=2026-11-14&end_date=2026-11-20';
const ALL = 'start_date=2000-01-01&end_date=2100-01-01';

let api: DemoApi;

async function call(path: string, key: string | null, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${api.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

async function rows(key: string, path: string, query = LAST_7, body: unknown = {}): Promise<Record<string, unknown>[]> {
  const answer = await call(`${path}?${query}`, key, body);
  expect(answer.status).toBe(200);
  return answer.json as Record<string, unknown>[];
}

beforeAll(async () => {
  api = await startDemoApi({
    apiKey: KEY_A,
    name: 'one',
    now: () => NOW,
    accounts: [{ name: 'two', apiKey: KEY_B, site: SOFTWARE_SITE }],
  });
});

afterAll(async () => {
  await api.close();
});

beforeEach(() => {
  api.resetRequests();
});

describe('demo API: several accounts', () => {
  it('makes the second data set on its first request, not at start', async () => {
    const fresh = await startDemoApi({ apiKey: 'x', now: () => NOW, accounts: [{ apiKey: 'y' }] });
    try {
      expect(fresh.accounts.map((a) => [a.name, a.generated])).toEqual([
        ['default', true],
        ['account-2', false],
      ]);
      const answer = await fetch(`${fresh.url}/countries?${LAST_7}`, { method: 'POST', headers: { 'x-api-key': 'y' } });
      expect(answer.status).toBe(200);
      expect(fresh.account('account-2').generated).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('answers the same question with each account’s own data', async () => {
    const [sourcesA, sourcesB] = [await rows(KEY_A, '/traffic/sources'), await rows(KEY_B, '/traffic/sources')];
    expect(sourcesA.length).toBeGreaterThan(0);
    expect(sourcesB.length).toBeGreaterThan(0);
    expect(sourcesB).not.toEqual(sourcesA);
    expect(sourcesA).toEqual(await rows(KEY_A, '/traffic/sources'));

    const pagesA = await rows(KEY_A, '/pages', ALL, { pagination: { limit: 1000 } });
    const pagesB = await rows(KEY_B, '/pages', ALL, { pagination: { limit: 1000 } });
    const urlsA = pagesA.map((r) => r['full_url'] as string);
    const urlsB = pagesB.map((r) => r['full_url'] as string);
    expect(urlsA.every((u) => u.startsWith('https://www.example-shop.com/'))).toBe(true);
    expect(urlsB.every((u) => u.startsWith(`${SOFTWARE_SITE.origin}/`))).toBe(true);
    const pathsA = new Set(urlsA.map((u) => new URL(u).pathname));
    const shared = urlsB.map((u) => new URL(u).pathname).filter((p) => pathsA.has(p));
    // The home page, and the hostile path kept for escaping tests (its `<` and `|` are not a URL's).
    expect(shared.filter((p) => p !== '/' && !p.startsWith('/landing/'))).toEqual([]);
  });

  it('keeps visits, visitors and referrers apart', async () => {
    const visitsA = await rows(KEY_A, '/visits', ALL, { pagination: { limit: 1000 } });
    const visitsB = await rows(KEY_B, '/visits', ALL, { pagination: { limit: 1000 } });
    const idsA = new Set(visitsA.map((v) => v['id']));
    expect(visitsB.some((v) => idsA.has(v['id']))).toBe(false);
    expect(visitsB.every((v) => String(v['visitor_id']).startsWith('v_oc_'))).toBe(true);
    expect(visitsB.every((v) => String(v['id']).startsWith('vs_oc_'))).toBe(true);
    expect(visitsB.every((v) => String(v['url']).startsWith(SOFTWARE_SITE.origin))).toBe(true);

    const refsA = new Set(visitsA.map((v) => v['referrer'] as string));
    const pathRefsB = visitsB
      .map((v) => v['referrer'] as string)
      .filter((r) => r.includes('reddit.com/r/') || r.includes('partner') || r.includes('integrator'));
    expect(pathRefsB.length).toBeGreaterThan(0);
    expect(pathRefsB.filter((r) => refsA.has(r))).toEqual([]);
  });

  it('does not know the other account’s visitors', async () => {
    const [visitorA] = await rows(KEY_A, '/visitors');
    const [visitorB] = await rows(KEY_B, '/visitors');
    const idA = visitorA!['id'] as string;
    const idB = visitorB!['id'] as string;
    const unknown = { error: 'not_found', message: 'unknown visitor' };

    for (const kind of ['bot-status', 'vpn-status', 'scraping-status']) {
      expect((await call(`/security/${kind}/${encodeURIComponent(idA)}`, KEY_A)).status).toBe(200);
      expect(await call(`/security/${kind}/${encodeURIComponent(idA)}`, KEY_B)).toEqual({ status: 404, json: unknown });
      expect((await call(`/security/${kind}/${encodeURIComponent(idB)}`, KEY_B)).status).toBe(200);
      expect(await call(`/security/${kind}/${encodeURIComponent(idB)}`, KEY_A)).toEqual({ status: 404, json: unknown });
    }
    const byVisitor = (id: string) => ({
      filter_groups: [{ filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: [id] }] }],
    });
    expect(await rows(KEY_B, '/visits', ALL, byVisitor(idA))).toEqual([]);
    expect(await rows(KEY_A, '/visits', ALL, byVisitor(idB))).toEqual([]);
    expect((await rows(KEY_B, '/visits', ALL, byVisitor(idB))).length).toBeGreaterThan(0);

    const attackerB = demoVisitorsOf(SOFTWARE_SITE).attacker;
    expect(attackerB).toBe('v_oc_demo_attacker');
    expect(await call(`/security/bot-status/${DEMO_VISITORS.attacker}`, KEY_B)).toEqual({ status: 404, json: unknown });
    expect(await call(`/security/bot-status/${attackerB}`, KEY_A)).toEqual({ status: 404, json: unknown });
    const record = await call(`/security/bot-status/${attackerB}`, KEY_B);
    expect(record).toEqual({
      status: 200,
      json: { visitor_id: attackerB, is_abuser: 'True', is_attacker: 'True', is_proxy: 'True', is_threat: 'True' },
    });
  });

  it('records which account each request was for, never the key', async () => {
    await call(`/countries?${LAST_7}`, KEY_A, {});
    await call(`/countries?${LAST_7}`, KEY_B, {});
    await call(`/cities?${LAST_7}`, KEY_B, {});
    await call(`/countries?${LAST_7}`, 'not-a-key', {});
    await call(`/countries?${LAST_7}`, null, {});
    expect(api.requests.map((r) => [r.path, r.status, r.account])).toEqual([
      ['/countries', 200, 'one'],
      ['/countries', 200, 'two'],
      ['/cities', 200, 'two'],
      ['/countries', 401, undefined],
      ['/countries', 401, undefined],
    ]);
    expect(api.requests.filter((r) => r.account === 'two')).toHaveLength(2);
    expect(JSON.stringify(api.requests)).not.toContain(KEY_A);
    expect(JSON.stringify(api.requests)).not.toContain(KEY_B);
  });

  it('gives each account its own live traffic', async () => {
    const live = await startDemoApi({
      apiKey: KEY_A,
      now: () => NOW,
      live: { everyMs: 3_600_000 },
      accounts: [{ name: 'two', apiKey: KEY_B }],
    });
    try {
      expect(live.account('two').dataset.visits.length).toBeGreaterThan(0);
      const added = live.advanceLive(new Date(NOW.getTime() + 10 * 60_000));
      const ofTwo = added.filter((v) => v.visitor_id.startsWith('v_oc_'));
      const ofOne = added.filter((v) => !v.visitor_id.startsWith('v_oc_'));
      expect(ofOne.length).toBeGreaterThan(0);
      expect(ofTwo.length).toBeGreaterThan(0);
      expect(ofTwo.every((v) => v.url.startsWith(SOFTWARE_SITE.origin))).toBe(true);
      expect(ofOne.every((v) => v.url.startsWith('https://www.example-shop.com/'))).toBe(true);
      expect(live.account('two').dataset.getVisit(ofTwo[0]!.id)).toBeDefined();
      expect(live.dataset.getVisit(ofTwo[0]!.id)).toBeUndefined();
    } finally {
      await live.close();
    }
  });

  it('refuses two accounts with one key', async () => {
    await expect(startDemoApi({ apiKey: 'same', accounts: [{ apiKey: 'same' }] })).rejects.toThrow(/key of another/);
  });
});
