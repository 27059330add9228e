import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApi, type DemoAccount, type DemoApi } from '../../src/demo-api/server.js';

const NOW = new Date('2026-11-20T13:45:12.000Z');
const TODAY = Date.parse('2026-11-20T00:00:00.000Z');
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
const KEYS: Record<string, string> = { default: 'k-history-default', 'account-2': 'k-history-two' };

let api: DemoApi;

const start = () => startDemoApi({ apiKey: KEYS.default, now: () => NOW, accounts: [{ apiKey: KEYS['account-2']! }] });

beforeAll(async () => {
  api = await start();
});

afterAll(async () => {
  await api.close();
});

const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

async function call(
  account: DemoAccount,
  path: string,
  day: string,
  body: unknown,
): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${api.url}${path}?start_date=${day}&end_date=${day}`, {
    method: 'POST',
    headers: { 'x-api-key': KEYS[account.name]!, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>[];
}

const days = new Map<string, Record<string, unknown>[]>();

/** Every visit of a UTC day, as /visits answers it (all pages; asked once, as nothing changes the history). */
async function visitsOfDay(account: DemoAccount, day: string): Promise<Record<string, unknown>[]> {
  const known = days.get(`${account.name}/${day}`);
  if (known) return known;
  const out: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const rows = await call(account, '/visits', day, { pagination: { current_page: page, limit: 1000 } });
    out.push(...rows);
    if (rows.length < 1000) break;
  }
  days.set(`${account.name}/${day}`, out);
  return out;
}

/** The visits /visits answers for the hour starting at `t`, as an hourly watch counts them. */
async function hourVisits(account: DemoAccount, t: number): Promise<number> {
  const visits = await visitsOfDay(account, dayOf(t));
  return visits.filter((v) => Date.parse(v.date as string) >= t && Date.parse(v.date as string) < t + HOUR_MS).length;
}

/** The starts of the whole hours of [start, end). */
function hoursOf(span: { start: string; end: string }): number[] {
  const out: number[] = [];
  for (let t = Date.parse(span.start); t < Date.parse(span.end); t += HOUR_MS) out.push(t);
  return out;
}

/** The day's visits by source, as /traffic/sources reports them. */
async function sourcesOfDay(account: DemoAccount, day: string): Promise<Record<string, number>> {
  const rows = await call(account, '/traffic/sources', day, { pagination: { current_page: 1, limit: 1000 } });
  return Object.fromEntries(rows.map((r) => [r.name as string, r.total_visits as number]));
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

for (const name of ['default', 'account-2']) {
  describe(`the ${name} account's history`, () => {
    let account: DemoAccount;
    beforeAll(() => {
      account = api.account(name);
    });

    it('has a past spike and a past outage in the last four weeks, before the last eight days', () => {
      const { spike, outage } = account.dataset.pastEvents!;
      for (const span of [spike, outage]) {
        expect(Date.parse(span.start)).toBeGreaterThanOrEqual(TODAY - 28 * DAY_MS);
        expect(Date.parse(span.end)).toBeLessThanOrEqual(TODAY - 8 * DAY_MS);
      }
      expect(hoursOf(spike).length).toBeGreaterThanOrEqual(1);
      expect(hoursOf(outage).length).toBeGreaterThanOrEqual(3);
      // Not on one weekday: neither is in the other's baseline weeks.
      expect(new Date(spike.start).getUTCDay()).not.toBe(new Date(outage.start).getUTCDay());
    });

    it("the spike's hours hold far more visits than the same hours a week before and a week after", async () => {
      const { spike } = account.dataset.pastEvents!;
      for (const t of hoursOf(spike)) {
        const at = await hourVisits(account, t);
        const weekBefore = await hourVisits(account, t - WEEK_MS);
        const weekAfter = await hourVisits(account, t + WEEK_MS);
        expect(weekBefore).toBeGreaterThan(0);
        expect(at, new Date(t).toISOString()).toBeGreaterThan(2 * weekBefore);
        expect(at, new Date(t).toISOString()).toBeGreaterThan(2 * weekAfter);
      }
    });

    it("the spike's visits are ordinary records: the day's source report shows them, by new visitors", async () => {
      const { spike } = account.dataset.pastEvents!;
      const day = dayOf(Date.parse(spike.start));
      const sources = await sourcesOfDay(account, day);
      const weekBefore = await sourcesOfDay(account, dayOf(Date.parse(spike.start) - WEEK_MS));
      expect(sources[spike.source]! - (weekBefore[spike.source] ?? 0)).toBeGreaterThanOrEqual(spike.visits * 0.8);
      expect(total(sources)).toBe((await visitsOfDay(account, day)).length);
      const inSpike = (await visitsOfDay(account, day)).filter(
        (v) =>
          Date.parse(v.date as string) >= Date.parse(spike.start) &&
          Date.parse(v.date as string) < Date.parse(spike.end),
      );
      const fromSource = inSpike.filter((v) => (v.trafficSource as { source: string }).source === spike.source);
      expect(fromSource.length).toBeGreaterThanOrEqual(spike.visits);
      const firstSeenThen = fromSource.filter((v) => {
        const visitor = account.dataset.getVisitor(v.visitor_id as string)!;
        return visitor.first_seen.slice(0, 10) === day;
      });
      expect(firstSeenThen.length).toBeGreaterThanOrEqual(spike.visits);
    });

    it("the outage's hours have no visits; the hour before and after it, and its hours a week before, do", async () => {
      const { outage } = account.dataset.pastEvents!;
      const hours = hoursOf(outage);
      for (const t of hours) {
        expect(await hourVisits(account, t), new Date(t).toISOString()).toBe(0);
        expect(await hourVisits(account, t - WEEK_MS)).toBeGreaterThan(0);
      }
      expect(await hourVisits(account, hours[0]! - HOUR_MS)).toBeGreaterThan(0);
      expect(await hourVisits(account, hours.at(-1)! + HOUR_MS)).toBeGreaterThan(0);
      const day = dayOf(hours[0]!);
      expect(total(await sourcesOfDay(account, day))).toBe((await visitsOfDay(account, day)).length);
    });
  });
}

it('each account has its own hours; the same seed gives the same ones on a fresh demo API', async () => {
  const [one, two] = api.accounts.map((a) => a.dataset.pastEvents!);
  expect(one!.spike.start).not.toBe(two!.spike.start);
  expect(one!.outage.start).not.toBe(two!.outage.start);
  const again = await start();
  try {
    expect(again.accounts.map((a) => a.dataset.pastEvents)).toEqual([one, two]);
  } finally {
    await again.close();
  }
});
