import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApi, type DemoAccount, type DemoApi } from '../../src/demo-api/server.js';
import { isFlagged, type PeriodCounts } from '../../src/demo-api/spikes.js';

const NOW = new Date('2026-11-20T13:45:12.000Z');
const DAY = '2026-11-20';
const HOUR_MS = 3_600_000;
const HUMAN_HOUR = new Date('2026-11-20T10:00:00.000Z');
const WAVE_HOUR = new Date('2026-11-20T11:00:00.000Z');
const KEYS: Record<string, string> = { default: 'k-spikes-default', 'account-2': 'k-spikes-two' };

let api: DemoApi;

const start = () =>
  startDemoApi({
    apiKey: KEYS.default,
    now: () => NOW,
    accounts: [{ apiKey: KEYS['account-2']!, visitors: 800, visits: 9000 }],
  });

beforeAll(async () => {
  api = await start();
});

afterAll(async () => {
  await api.close();
});

const call = async (
  account: DemoAccount,
  path: string,
  body: unknown = {},
  days = `start_date=${DAY}&end_date=${DAY}`,
) => {
  const res = await fetch(`${api.url}${path}${days ? `?${days}` : ''}`, {
    method: body === null ? 'GET' : 'POST',
    headers: {
      'x-api-key': KEYS[account.name]!,
      ...(body === null ? {} : { 'content-type': 'application/json' }),
    },
    body: body === null ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>[] & Record<string, unknown>;
};

/** Every row of a report for the day, all pages. */
async function report(account: DemoAccount, path: string, filters?: unknown[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const rows = await call(account, path, {
      pagination: { current_page: page, limit: 1000 },
      ...(filters ? { filter_groups: [{ filters }] } : {}),
    });
    out.push(...rows);
    if (rows.length < 1000) return out;
  }
}

const byName = (rows: Record<string, unknown>[], key: string, value: string) =>
  Object.fromEntries(rows.map((r) => [r[key] as string, r[value] as number]));

const hourCounts = (account: DemoAccount, hour: Date): PeriodCounts =>
  account.counts(hour, new Date(hour.getTime() + HOUR_MS));

/** The day's reports agree with the demo API's own counts of the day, row for row. */
async function expectReportsAgree(account: DemoAccount): Promise<void> {
  const day = account.counts(new Date(`${DAY}T00:00:00Z`), new Date(Date.parse(`${DAY}T00:00:00Z`) + 24 * HOUR_MS));
  expect(byName(await report(account, '/traffic/sources'), 'name', 'total_visits')).toEqual(day.sources);
  expect(byName(await report(account, '/pages'), 'full_url', 'total')).toEqual(day.pages);
  expect(byName(await report(account, '/countries'), 'label', 'total_visits')).toEqual(day.countries);
  expect((await report(account, '/visits')).length).toBe(day.visits);
}

for (const name of ['default', 'account-2']) {
  describe(`spikes in the ${name} account`, () => {
    let account: DemoAccount;
    beforeAll(() => {
      account = api.account(name);
    });

    it('a human spike: new visitors from a source the account has never seen, judged human by every lookup', async () => {
      const before = hourCounts(account, HUMAN_HOUR);
      const wholeBefore = await call(account, '/traffic/sources', {}, 'start_date=2000-01-01&end_date=2100-01-01');
      expect(wholeBefore.map((r) => r.name)).not.toContain('x.com');

      const spike = account.spike({ kind: 'human', hour: HUMAN_HOUR, visits: 150, visitors: 120 });
      expect(spike).toMatchObject({
        kind: 'human',
        from: '2026-11-20T10:00:00.000Z',
        to: '2026-11-20T11:00:00.000Z',
        visits: 150,
        visitors: 120,
        flaggedVisits: 0,
        flaggedVisitors: 0,
        source: { name: 'x.com', label: 'x.com', referrer: 'https://x.com/', channel: 'Social' },
      });
      expect(account.spikes.at(-1)).toBe(spike);

      // The demo API's own counts of the hour: the spike on top of what was there.
      const after = hourCounts(account, HUMAN_HOUR);
      expect(after.visits - before.visits).toBe(150);
      expect(after.visitors - before.visitors).toBe(120);
      expect(after.sources['x.com']).toBe(150);
      expect(before.sources['x.com']).toBeUndefined();
      expect(after.flaggedVisits).toBe(before.flaggedVisits);

      // Its answers: the sources report, the visits and the visitors.
      const sources = await call(account, '/traffic/sources');
      expect(sources.find((r) => r.name === 'x.com')).toMatchObject({
        label: 'x.com',
        total_visits: 150,
        unique_visitors: 120,
      });
      const whole = await call(account, '/traffic/sources', {}, 'start_date=2000-01-01&end_date=2100-01-01');
      expect(whole.find((r) => r.name === 'x.com')).toMatchObject({ total_visits: 150 });
      const visits = await report(account, '/visits', [
        { object: 'source', field: 'name', operator: 'is_any_of', value: ['x.com'] },
      ]);
      expect(visits.map((v) => v.id).sort()).toEqual([...spike.visitIds].sort());
      for (const v of visits) {
        expect(v.referrer).toBe('https://x.com/');
        expect(Date.parse(v.date as string)).toBeGreaterThanOrEqual(HUMAN_HOUR.getTime());
        expect(Date.parse(v.date as string)).toBeLessThan(HUMAN_HOUR.getTime() + HOUR_MS);
      }
      const visitors = await report(account, '/visitors', [
        { object: 'source', field: 'name', operator: 'is_any_of', value: ['x.com'] },
      ]);
      expect(visitors.map((v) => v.id).sort()).toEqual([...spike.visitorIds].sort());
      for (const v of visitors) expect(Date.parse(v.first_seen as string)).toBeGreaterThanOrEqual(HUMAN_HOUR.getTime());

      // Every visitor, looked up: human, no threat, no VPN.
      for (const id of spike.visitorIds) {
        const path = (kind: string) => `/security/${kind}/${encodeURIComponent(id)}`;
        expect(await call(account, path('bot-status'), null, '')).toMatchObject({
          is_attacker: 'False',
          is_threat: 'False',
          is_abuser: 'False',
          is_proxy: 'False',
        });
        const scraping = await call(account, path('scraping-status'), null, '');
        expect(scraping.visitor_type).toBe('HUMAN');
        expect(scraping.score as number).toBeLessThan(0.5);
        expect(await call(account, path('vpn-status'), null, '')).toMatchObject({ vpn: 'False' });
      }
      await expectReportsAgree(account);
    });

    it('a scraper wave: new scrapers on one page from a common source, flagged by the lookups', async () => {
      const before = hourCounts(account, WAVE_HOUR);
      const spike = account.spike({ kind: 'scraper', hour: WAVE_HOUR, visits: 140 });
      const page = name === 'default' ? '/pricing' : '/plans';
      expect(spike).toMatchObject({
        kind: 'scraper',
        visits: 140,
        visitors: 10,
        flaggedVisits: 140,
        flaggedVisitors: 10,
        source: { name: 'direct', label: 'Direct', referrer: '' },
        page: { path: page, url: `${account.site.origin}${page}` },
      });
      expect(before.sources.direct).toBeGreaterThan(0);

      const after = hourCounts(account, WAVE_HOUR);
      expect(after.visits - before.visits).toBe(140);
      expect(after.flaggedVisits - before.flaggedVisits).toBe(140);
      expect((after.pages[spike.page!.url] ?? 0) - (before.pages[spike.page!.url] ?? 0)).toBe(140);
      expect((after.flaggedPages[spike.page!.url] ?? 0) - (before.flaggedPages[spike.page!.url] ?? 0)).toBe(140);
      expect(after.sources.direct! - before.sources.direct!).toBe(140);

      const pages = await call(account, '/pages', {
        filter_groups: [
          { filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: spike.visitorIds }] },
        ],
      });
      expect(pages).toEqual([expect.objectContaining({ full_url: spike.page!.url, total: 140, visitors: 10 })]);
      const visits = await report(account, '/visits', [
        { object: 'visitor', field: 'id', operator: 'is_any_of', value: [...spike.visitorIds] },
      ]);
      expect(visits.map((v) => v.id).sort()).toEqual([...spike.visitIds].sort());
      for (const v of visits) expect(v).toMatchObject({ url: spike.page!.url, referrer: '' });

      for (const id of spike.visitorIds) {
        const path = (kind: string) => `/security/${kind}/${encodeURIComponent(id)}`;
        const scraping = await call(account, path('scraping-status'), null, '');
        expect(scraping.visitor_type).toBe('SCRAPER');
        expect(scraping.score as number).toBeGreaterThanOrEqual(0.8);
        expect(await call(account, path('bot-status'), null, '')).toMatchObject({ is_abuser: 'True' });
        expect(isFlagged(account.dataset.securityOf(id))).toBe(true);
      }
      await expectReportsAgree(account);
    });

    it('a second human spike comes from the next new source; a source seen before, or a wave from an unknown one, is refused', () => {
      const hour = new Date('2026-11-20T12:00:00.000Z');
      expect(account.spike({ kind: 'human', hour, visits: 5 }).source.name).toBe('bsky.app');
      expect(() =>
        account.spike({
          kind: 'human',
          hour,
          visits: 5,
          source: { name: 'x.com', referrer: 'https://x.com/', channel: 'Social' },
        }),
      ).toThrow(/not new/);
      expect(() => account.spike({ kind: 'scraper', hour, visits: 5, source: 'nowhere' })).toThrow(/not a source/);
      expect(() => account.spike({ kind: 'human', hour, visits: 0 })).toThrow(RangeError);
    });

    it('a drop: every visit from one source taken out of the hour, as the reports and the visits show', async () => {
      const hour = new Date('2026-11-20T09:00:00.000Z');
      const before = hourCounts(account, hour);
      const [commonest, most] = Object.entries(before.sources).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]!;
      const drop = account.spike({ kind: 'drop', hour });
      expect(drop).toMatchObject({
        kind: 'drop',
        visits: most,
        flaggedVisits: before.flaggedSources[commonest] ?? 0,
        source: { name: commonest },
      });
      const after = hourCounts(account, hour);
      expect(after.visits).toBe(before.visits - most);
      expect(after.sources[commonest]).toBeUndefined();
      expect(after.flaggedVisits).toBe(before.flaggedVisits - drop.flaggedVisits);
      for (const id of drop.visitIds) expect(account.dataset.getVisit(id)).toBeUndefined();
      // A visitor keeps its other visits, its last seen closing in on them; one with none left is gone.
      for (const id of drop.visitorIds) {
        const left = account.dataset.visitsOf(id);
        const visitor = account.dataset.getVisitor(id);
        if (left.length === 0) expect(visitor).toBeUndefined();
        else expect(visitor).toMatchObject({ first_seen: left[0]!.date, last_seen: left.at(-1)!.date });
      }
      const visits = await report(account, '/visits');
      expect(visits.some((v) => drop.visitIds.includes(v.id as string))).toBe(false);
      await expectReportsAgree(account);
      expect(() => account.spike({ kind: 'drop', hour, source: commonest })).toThrow(/no visit from/);
    });

    it('`before` cuts the hour: every visit before it', () => {
      const hour = new Date('2026-11-20T13:00:00.000Z');
      const spike = account.spike({ kind: 'scraper', hour, visits: 30, before: NOW });
      expect(spike.to).toBe(NOW.toISOString());
      for (const id of spike.visitIds)
        expect(Date.parse(account.dataset.getVisit(id)!.date)).toBeLessThan(NOW.getTime());
    });
  });
}

it('a spike is a function of the data set and the request: the same on a fresh demo API', async () => {
  const again = await start();
  try {
    const one = api.account('account-2');
    const two = again.account('account-2');
    // The fresh one gets the same history of spikes as the first, in the same order.
    const replayed = one.spikes.map((s) =>
      two.spike(
        s.kind === 'human'
          ? { kind: 'human', hour: new Date(s.from), visits: s.visits, visitors: s.visitors, before: new Date(s.to) }
          : s.kind === 'drop'
            ? { kind: 'drop', hour: new Date(s.from), source: s.source.name, before: new Date(s.to) }
            : { kind: 'scraper', hour: new Date(s.from), visits: s.visits, before: new Date(s.to) },
      ),
    );
    expect(replayed).toEqual(one.spikes);
    expect(two.counts(HUMAN_HOUR, NOW)).toEqual(one.counts(HUMAN_HOUR, NOW));
  } finally {
    await again.close();
  }
});
