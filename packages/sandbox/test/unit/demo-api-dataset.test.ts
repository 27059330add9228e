import { describe, expect, it } from 'vitest';
import { ADBLOCK_EXTENSIONS, SCRAPER_EXTENSIONS } from '../../src/demo-api/devices.js';
import { EMOJI_CAMPAIGN, HOSTILE_CAMPAIGN, HOSTILE_PAGE_PATH } from '../../src/demo-api/catalog.js';
import { Dataset, DEMO_VISITORS } from '../../src/demo-api/dataset.js';
import { generateDataset } from '../../src/demo-api/generate-dataset.js';

const NOW = new Date('2026-11-20T13:45:12.345Z');
const DAY = 86_400_000;
const small = (seed = 42, now = NOW) => generateDataset({ seed, now, visitors: 300, visits: 3000, days: 60 });
const snapshot = (d: Dataset) => JSON.stringify({ visitors: d.visitors, visits: d.visits, security: [...d.security] });

describe('generateDataset: determinism', () => {
  it('gives the same data for the same seed and now', () => {
    expect(snapshot(small())).toBe(snapshot(small()));
  });

  it('gives different data for another seed, but the same fixed visitors', () => {
    const a = small(1);
    const b = small(2);
    expect(snapshot(a)).not.toBe(snapshot(b));
    for (const id of Object.values(DEMO_VISITORS)) {
      expect(a.getVisitor(id)).toEqual(b.getVisitor(id));
      expect(a.securityOf(id)).toEqual(b.securityOf(id));
      expect(a.visitsOf(id).map((v) => v.id)).toEqual(b.visitsOf(id).map((v) => v.id));
    }
  });

  it('keeps ids, profiles and counts when only now changes; every date follows now', () => {
    const later = new Date(NOW.getTime() + 3 * DAY + 5_000);
    const a = small(5, NOW);
    const b = small(5, later);
    expect(b.visitors.map((v) => v.id)).toEqual(a.visitors.map((v) => v.id));
    expect([...b.security]).toEqual([...a.security]);
    expect(new Set(b.visits.map((v) => v.id))).toEqual(new Set(a.visits.map((v) => v.id)));
    expect(b.visits.every((v) => Date.parse(v.date) <= later.getTime())).toBe(true);
    expect(b.visits.some((v) => Date.parse(v.date) > NOW.getTime())).toBe(true);
  });
});

describe('generateDataset: the default data set', () => {
  const data = generateDataset({ now: NOW });

  it('has about 3000 visitors and 40000 visits over 120 days, all up to now', () => {
    const spikeVisitors = data.pastEvents!.spike.visitors;
    expect(data.visitors.length).toBe(3000 + Object.keys(DEMO_VISITORS).length + spikeVisitors);
    expect(data.visits.length).toBeGreaterThanOrEqual(40_000);
    expect(data.visits.length).toBeLessThan(40_200);
    const oldest = Date.UTC(2026, 10, 20) - 119 * DAY;
    const outside = data.visits.filter((v) => {
      const t = Date.parse(v.date);
      return !(t >= oldest && t <= NOW.getTime()) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v.date);
    });
    expect(outside).toEqual([]);
  });

  it('has visits on every one of the last 30 days, fewer at weekends', () => {
    const perDay = new Map<string, number>();
    for (const e of data.entries) perDay.set(e.facts.day, (perDay.get(e.facts.day) ?? 0) + 1);
    let weekday = 0;
    let weekend = 0;
    for (let i = 0; i < 30; i++) {
      const date = new Date(Date.UTC(2026, 10, 20) - i * DAY);
      const count = perDay.get(date.toISOString().slice(0, 10)) ?? 0;
      expect(count, date.toISOString()).toBeGreaterThan(20);
      if (i > 0) {
        if (date.getUTCDay() === 0 || date.getUTCDay() === 6) weekend += count;
        else weekday += count;
      }
    }
    expect(weekend / 8).toBeLessThan(weekday / 21);
  });

  it.each(['2026-11-23T10:00:30Z', '2026-11-20T20:15:00Z'])(
    'made at %s, today holds what the same hours of the four weeks before held, new visitors too, not a whole day squeezed into them',
    (at) => {
      const now = new Date(at);
      const made = generateDataset({ now });
      const today = Math.floor(now.getTime() / DAY) * DAY;
      const firstSeen = new Map(made.visitors.map((v) => [v.id, Date.parse(v.first_seen)]));
      /** Generated visits (not the fixed visitors') from `day`'s midnight until its time of day of now, and those by visitors first seen that day. */
      const upToNow = (day: number) => {
        const visits = made.visits.filter(
          (v) =>
            !v.visitor_id.startsWith('v_demo_') &&
            Date.parse(v.date) >= day &&
            Date.parse(v.date) <= day + (now.getTime() - today),
        );
        return { visits: visits.length, newcomers: visits.filter((v) => firstSeen.get(v.visitor_id)! >= day).length };
      };
      const before = Array.from({ length: 28 }, (_, i) => upToNow(today - (i + 1) * DAY));
      const usual = {
        visits: before.reduce((n, d) => n + d.visits, 0) / 28,
        newcomers: before.reduce((n, d) => n + d.newcomers, 0) / 28,
      };
      const seen = upToNow(today);
      expect(seen.visits / usual.visits).toBeGreaterThan(0.7);
      expect(seen.visits / usual.visits).toBeLessThan(1.3);
      expect(seen.newcomers / usual.newcomers).toBeLessThan(1.6);
    },
  );

  it('keeps its indexes consistent', () => {
    expect(data.visitById.size).toBe(data.visits.length);
    expect(data.visitorById.size).toBe(data.visitors.length);
    expect(data.entries.map((e) => e.visit)).toEqual(data.visits);
    let total = 0;
    const inconsistent = data.visitors.filter((visitor) => {
      const own = data.visitsOf(visitor.id);
      total += own.length;
      return (
        own.length === 0 ||
        !own.every((v) => v.visitor_id === visitor.id) ||
        visitor.first_seen !== own[0]!.date ||
        visitor.last_seen !== own.at(-1)!.date ||
        data.securityOf(visitor.id) === undefined
      );
    });
    expect(inconsistent).toEqual([]);
    expect(total).toBe(data.visits.length);
    const unordered = data.visits.filter((b, i) => {
      const a = data.visits[i - 1];
      return a !== undefined && !(a.date < b.date || (a.date === b.date && a.id < b.id));
    });
    expect(unordered).toEqual([]);
  });

  it('uses unique ids from a safe character set', () => {
    const ids = [...data.visitors.map((v) => v.id), ...data.visits.map((v) => v.id)];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[A-Za-z0-9_-]+$/.test(id))).toEqual([]);
    expect(data.visitors.filter((v) => /^v_[0-9a-f]{12}$/.test(v.id)).length).toBe(
      3000 + data.pastEvents!.spike.visitors,
    );
  });

  it('has realistic spreads of places, pages, companies and params', () => {
    const cities = new Set(data.entries.map((e) => e.facts.cityLabel));
    const countries = new Set(data.visits.map((v) => v.location.country_code));
    const pages = new Set(data.entries.map((e) => e.facts.pagePath));
    expect(cities.size).toBeGreaterThan(250);
    expect(countries.size).toBeGreaterThanOrEqual(30);
    expect(pages.size).toBeGreaterThan(120);
    const withCompany = data.visitors.filter((v) => v.company).length / data.visitors.length;
    expect(withCompany).toBeGreaterThan(0.25);
    expect(withCompany).toBeLessThan(0.35);
    const rawParams = data.visits.filter((v) => typeof v.params === 'string').length / data.visits.length;
    expect(rawParams).toBeGreaterThan(0.05);
    expect(rawParams).toBeLessThan(0.15);
    expect(data.visits.some((v) => v.ip.includes(':'))).toBe(true);
    expect(data.visits.filter((v) => v.referrer === '').length).toBeGreaterThan(0);
  });

  it('has the documented share of each security profile', () => {
    const profiles = [...data.security.values()];
    const share = (test: (p: (typeof profiles)[number]) => boolean) => profiles.filter(test).length / profiles.length;
    const within = (value: number, low: number, high: number) => {
      expect(value).toBeGreaterThanOrEqual(low);
      expect(value).toBeLessThanOrEqual(high);
    };
    within(
      share((p) => p.is_attacker === 'True'),
      0.015,
      0.05,
    );
    within(
      share((p) => p.is_abuser === 'True'),
      0.015,
      0.05,
    );
    within(
      share((p) => p.is_threat === 'True'),
      0.02,
      0.06,
    );
    within(
      share((p) => p.is_proxy === 'True'),
      0.04,
      0.08,
    );
    within(
      share((p) => p.vpn === 'True'),
      0.07,
      0.13,
    );
    within(
      share((p) => p.visitor_type !== 'HUMAN' && p.visitor_type !== 'Unknown'),
      0.035,
      0.07,
    );
    within(
      share((p) => p.vpn === 'Unknown'),
      0.015,
      0.05,
    );
    within(
      share((p) => p.adblock === 'Yes'),
      0.28,
      0.4,
    );
    const fixed = new Set<string>(Object.values(DEMO_VISITORS));
    for (const [id, p] of data.security) {
      if (fixed.has(id)) continue;
      expect(['True', 'False', 'Unknown']).toContain(p.is_threat);
      expect(['Yes', 'No', 'Unknown']).toContain(p.adblock);
      if (p.visitor_type === 'HUMAN') {
        expect(p.score).toBeLessThanOrEqual(0.3);
        expect(p.scraper_extension_list).toEqual([]);
      } else if (p.visitor_type !== 'Unknown') {
        expect(['BOT', 'SCRAPER', 'CRAWLER']).toContain(p.visitor_type);
        expect(p.score).toBeGreaterThanOrEqual(0.7);
        expect(p.score).toBeLessThanOrEqual(0.99);
        expect(p.scraper_extension_list.length).toBeGreaterThanOrEqual(1);
        expect(p.scraper_extension_list.length).toBeLessThanOrEqual(3);
        for (const ext of p.scraper_extension_list) expect(ext.id).toMatch(/^[a-p]{32}$/);
      } else {
        expect([p.is_abuser, p.is_attacker, p.is_proxy, p.is_threat, p.vpn, p.adblock]).toEqual(
          Array(6).fill('Unknown'),
        );
      }
    }
  });

  it('gives scrapers more visits and bot-ish browsers', () => {
    const scraperIds = new Set([...data.security].filter(([, p]) => p.score >= 0.7).map(([id]) => id));
    const humans = data.visitors.filter((v) => !scraperIds.has(v.id));
    const mean = (ids: string[]) => ids.reduce((s, id) => s + data.visitsOf(id).length, 0) / ids.length;
    expect(mean([...scraperIds])).toBeGreaterThan(2 * mean(humans.map((v) => v.id)));
    const botBrowsers = new Set(['HeadlessChrome', 'python-requests', 'Scrapy', 'curl', 'Go-http-client']);
    const scraperVisits = data.visits.filter((v) => scraperIds.has(v.visitor_id));
    expect(scraperVisits.filter((v) => botBrowsers.has(v.browser.name)).length / scraperVisits.length).toBeGreaterThan(
      0.5,
    );
    expect(data.visits.filter((v) => !scraperIds.has(v.visitor_id) && botBrowsers.has(v.browser.name))).toEqual([]);
  });

  it('agrees between a visitor’s profile and their browser extensions', () => {
    const adblockers = new Set(ADBLOCK_EXTENSIONS.map(([name]) => name));
    const scraperExtensions = new Set(SCRAPER_EXTENSIONS);
    for (const [id, p] of data.security) {
      if (p.adblock_extension !== '') {
        expect(p.adblock).toBe('Yes');
        expect(adblockers.has(p.adblock_extension)).toBe(true);
      }
      const listed = p.scraper_extension_list
        .map((e) => e.name)
        .sort()
        .join('|');
      const odd = data.visitsOf(id).filter((v) => {
        if (v.browser.extensions.some((e) => adblockers.has(e)) && p.adblock === 'No') return true;
        const scraping = v.browser.extensions.filter((e) => scraperExtensions.has(e));
        return scraping.length > 0 && scraping.sort().join('|') !== listed;
      });
      expect(odd).toEqual([]);
    }
  });

  it('holds the hostile strings, rarely', () => {
    const campaign = (name: string) => data.visits.filter((v) => v.trafficSource.campaign === name).length;
    for (const name of [HOSTILE_CAMPAIGN, EMOJI_CAMPAIGN]) {
      expect(campaign(name)).toBeGreaterThan(0);
      expect(campaign(name)).toBeLessThan(10);
    }
    const hostilePage = data.visits.filter((v) => v.url.endsWith(HOSTILE_PAGE_PATH));
    expect(hostilePage.length).toBeGreaterThan(0);
    expect(hostilePage[0]!.url).toContain('<https://evil.example|click>');
    // Some of them fall in the last seven days, where `last7d` finds them.
    const weekAgo = NOW.getTime() - 7 * DAY;
    expect(data.visits.some((v) => v.trafficSource.campaign === HOSTILE_CAMPAIGN && Date.parse(v.date) > weekAgo)).toBe(
      true,
    );
  });
});

describe('fixed demo visitors', () => {
  const data = small(99);
  const today = NOW.toISOString().slice(0, 10);

  it.each(Object.entries(DEMO_VISITORS))('%s has several recent visits, one of them today', (_role, id) => {
    const visits = data.visitsOf(id);
    expect(visits.length).toBeGreaterThanOrEqual(5);
    expect(visits.some((v) => v.date.startsWith(today))).toBe(true);
    expect(visits.filter((v) => NOW.getTime() - Date.parse(v.date) < DAY).length).toBeGreaterThanOrEqual(2);
  });

  it('have the obvious profiles', () => {
    expect(data.securityOf(DEMO_VISITORS.attacker)).toMatchObject({ is_attacker: 'True', is_threat: 'True' });
    expect(data.securityOf(DEMO_VISITORS.scraper)).toMatchObject({ visitor_type: 'SCRAPER' });
    expect(data.securityOf(DEMO_VISITORS.scraper)!.score).toBeGreaterThanOrEqual(0.9);
    expect(data.securityOf(DEMO_VISITORS.scraper)!.scraper_extension_list.map((e) => e.name)).toEqual([
      'Web Scraper',
      'Data Miner',
    ]);
    expect(data.securityOf(DEMO_VISITORS.vpn)).toMatchObject({
      vpn: 'True',
      is_attacker: 'False',
      visitor_type: 'HUMAN',
    });
    expect(data.securityOf(DEMO_VISITORS.human)).toMatchObject({
      vpn: 'False',
      is_attacker: 'False',
      is_abuser: 'False',
      is_proxy: 'False',
      is_threat: 'False',
      visitor_type: 'HUMAN',
    });
    expect(data.securityOf(DEMO_VISITORS.unknown)).toMatchObject({
      adblock: 'Unknown',
      is_abuser: 'Unknown',
      is_attacker: 'Unknown',
      is_proxy: 'Unknown',
      is_threat: 'Unknown',
      vpn: 'Unknown',
      score: 0,
    });
  });

  it('still has today’s visit just after midnight UTC', () => {
    const midnight = new Date('2026-11-21T00:00:20.000Z');
    const d = generateDataset({ seed: 3, now: midnight, visitors: 20, visits: 100, days: 10 });
    for (const id of Object.values(DEMO_VISITORS)) {
      expect(d.visitsOf(id).some((v) => v.date.startsWith('2026-11-21'))).toBe(true);
    }
  });
});

describe('entriesBetween', () => {
  const data = small(11);

  it('includes both end days, by UTC calendar day', () => {
    const inRange = data.entriesBetween('2026-11-18', '2026-11-19');
    expect(inRange.length).toBe(data.visits.filter((v) => v.date >= '2026-11-18' && v.date < '2026-11-20').length);
    expect(inRange.length).toBeGreaterThan(0);
    expect(data.entriesBetween('2026-11-19', '2026-11-19').every((e) => e.visit.date.startsWith('2026-11-19'))).toBe(
      true,
    );
    expect(data.entriesBetween('2026-11-21', '2030-01-01')).toEqual([]);
    expect(data.entriesBetween('1970-01-01', '2999-12-31').length).toBe(data.visits.length);
  });
});

describe('addVisitor and addVisit', () => {
  it('keep every index consistent and bump the version', () => {
    const data = small(12);
    const before = data.version;
    const visitor = data.addVisitor({ id: 'v_new_threat', security: { is_threat: 'True', is_attacker: 'True' } });
    expect(data.version).toBeGreaterThan(before);
    expect(data.getVisitor('v_new_threat')).toEqual(visitor);
    expect(data.securityOf('v_new_threat')).toMatchObject({
      is_threat: 'True',
      is_attacker: 'True',
      is_abuser: 'False',
      vpn: 'False',
    });

    const date = '2026-11-20T13:50:00.000Z';
    const visit = data.addVisit({ visitor_id: 'v_new_threat', date, url: 'https://www.example-shop.com/login?x=1' });
    expect(visit.id).toMatch(/^vs_[0-9a-z]{16}$/);
    expect(data.getVisit(visit.id)).toBe(visit);
    expect(data.visits.at(-1)).toBe(visit);
    expect(data.entries.at(-1)!.facts.pagePath).toBe('/login');
    expect(data.visitsOf('v_new_threat')).toEqual([visit]);
    expect(data.getVisitor('v_new_threat')!.last_seen).toBe(date);
    expect(data.entriesBetween('2026-11-20', '2026-11-20').at(-1)!.visit).toBe(visit);
    // Unset fields come from a default desktop visit.
    expect(visit.device.type).toBe('desktop');
    expect(visit.trafficSource.source).toBe('direct');
  });

  it('inserts an older visit in date order and widens first_seen', () => {
    const data = small(13);
    const id = DEMO_VISITORS.human;
    const oldFirst = data.getVisitor(id)!.first_seen;
    const template = data.visitsOf(id).at(-1)!;
    const visit = data.addVisit({ visitor_id: id, id: 'vs_backfill', date: new Date('2026-09-30T08:00:00Z') });
    expect(visit.device).toEqual(template.device);
    expect(visit.device).not.toBe(template.device);
    const index = data.visits.indexOf(visit);
    expect(data.visits[index - 1]!.date <= visit.date).toBe(true);
    expect(data.visits[index + 1]!.date >= visit.date).toBe(true);
    expect(data.entries[index]!.visit).toBe(visit);
    expect(data.visitsOf(id)[0]).toBe(visit);
    expect(data.getVisitor(id)!.first_seen).toBe('2026-09-30T08:00:00.000Z');
    expect(oldFirst > '2026-09-30').toBe(true);
    expect(data.visitors.find((v) => v.id === id)!.first_seen).toBe('2026-09-30T08:00:00.000Z');
  });

  it('refuse unknown visitors, duplicate ids and bad dates', () => {
    const data = small(14);
    expect(() => data.addVisit({ visitor_id: 'v_nobody' })).toThrow(/unknown visitor/);
    expect(() => data.addVisitor({ id: DEMO_VISITORS.vpn })).toThrow(/already exists/);
    expect(() => data.addVisit({ visitor_id: DEMO_VISITORS.vpn, id: data.visits[0]!.id })).toThrow(/already exists/);
    expect(() => data.addVisit({ visitor_id: DEMO_VISITORS.vpn, date: 'not a date' })).toThrow(/not a valid date/);
  });

  it('dates an added visit by the data set clock when none is given', () => {
    const clock = () => new Date('2026-11-20T14:00:00.000Z');
    const data = generateDataset({ now: NOW, clock, visitors: 20, visits: 100, days: 10 });
    expect(data.addVisit({ visitor_id: DEMO_VISITORS.scraper }).date).toBe('2026-11-20T14:00:00.000Z');
  });
});
