/**
 * Hand-picked parts of the data set that tests rely on whatever the seed:
 * five visitors with stable ids and obvious profiles, and a few visits that
 * carry hostile strings (for mrkdwn-escaping tests).
 */

import { COMPANIES, EMOJI_CAMPAIGN, HOSTILE_CAMPAIGN, HOSTILE_PAGE_PATH } from './catalog.js';
import { COUNTRIES } from './places.js';
import { extensionId } from './devices.js';
import { DAY_MS, makeVisit, timeOnDay, type TimeFrame, type VisitOverrides } from './generator.js';
import { humanProfile, placeOf, unknownProfile, type DeviceSetup, type Persona, type Place } from './personas.js';
import type { SecurityProfile, Visit } from './model.js';
import { Random } from './random.js';

/** Visitors present in every generated data set, with several recent visits each (one of them today, UTC). */
export const DEMO_VISITORS = {
  attacker: 'v_demo_attacker',
  scraper: 'v_demo_scraper',
  vpn: 'v_demo_vpn',
  human: 'v_demo_human',
  unknown: 'v_demo_unknown',
} as const;

export type DemoVisitorRole = keyof typeof DEMO_VISITORS;

function place(code: string, state: string, city: string): Place {
  const country = COUNTRIES.find((c) => c.code === code);
  const region = country?.states.find((s) => s.name === state);
  if (!country || !region || !region.cities.includes(city))
    throw new Error(`fixture place not in catalog: ${city}, ${state}, ${code}`);
  return placeOf(country, region, city);
}

function device(
  type: DeviceSetup['type'],
  name: string,
  os: [string, string],
  browser: [string, string],
  screen: [number, number],
  extensions: string[] = [],
): DeviceSetup {
  return {
    type,
    name,
    os: { name: os[0], version: os[1] },
    browser: { name: browser[0], version: browser[1] },
    extensions,
    screen: { width: screen[0], height: screen[1] },
  };
}

interface Fixture {
  readonly persona: Persona;
  /** Minutes before now of each visit; 0 means "today (UTC), at or just before now". */
  readonly minutesAgo: readonly number[];
  readonly paths?: readonly string[];
}

const STANDARD_OFFSETS = [0, 95, 600, 1500, 4400, 8700, 21_700, 64_900];

function persona(
  id: string,
  profile: SecurityProfile,
  home: Place,
  devices: DeviceSetup[],
  ips: string[],
  extra: Partial<Persona> = {},
): Persona {
  return { id, kind: 'human', profile, home, devices, ips, weight: 1, arrivalAgo: 0, spanDays: 1, ...extra };
}

function fixtures(): Fixture[] {
  const scraperExtensions = ['Web Scraper', 'Data Miner'];
  return [
    {
      persona: persona(
        DEMO_VISITORS.attacker,
        {
          adblock: 'No',
          adblock_extension: '',
          is_abuser: 'True',
          is_attacker: 'True',
          is_proxy: 'True',
          is_threat: 'True',
          vpn: 'True',
          score: 0.86,
          visitor_type: 'BOT',
          scraper_extension_list: [],
        },
        place('NL', 'North Holland', 'Amsterdam'),
        [device('desktop', 'Desktop', ['Linux', '6.8'], ['Firefox', '132.0.2'], [1920, 1080])],
        ['185.220.101.47', '2a02:418:6a04:178::a3'],
      ),
      minutesAgo: STANDARD_OFFSETS,
      paths: ['/login', '/account', '/login', '/checkout', '/search', '/login', '/account/orders', '/login'],
    },
    {
      persona: persona(
        DEMO_VISITORS.scraper,
        {
          adblock: 'No',
          adblock_extension: '',
          is_abuser: 'True',
          is_attacker: 'False',
          is_proxy: 'True',
          is_threat: 'False',
          vpn: 'False',
          score: 0.97,
          visitor_type: 'SCRAPER',
          scraper_extension_list: scraperExtensions.map((name) => ({ id: extensionId(name), name })),
        },
        place('US', 'New York', 'Buffalo'),
        [
          device(
            'desktop',
            'Desktop',
            ['Linux', '6.5'],
            ['HeadlessChrome', '130.0.6723.58'],
            [800, 600],
            scraperExtensions,
          ),
        ],
        ['34.82.17.201'],
        { kind: 'scraper' },
      ),
      // A burst every five minutes over the last two hours, then some older runs.
      minutesAgo: [...Array.from({ length: 24 }, (_, i) => i * 5), 1500, 4400, 8700],
      paths: [
        '/products/classic-backpack',
        '/products/trail-jacket',
        '/products/merino-t-shirt',
        '/products/urban-headphones',
        '/sale',
        '/products',
      ],
    },
    {
      persona: persona(
        DEMO_VISITORS.vpn,
        { ...humanProfile(), vpn: 'True', score: 0.08 },
        place('DE', 'Berlin', 'Berlin'),
        [device('desktop', 'Desktop', ['macOS', '15.1'], ['Safari', '18.1'], [1440, 900])],
        ['91.64.12.77'],
      ),
      minutesAgo: STANDARD_OFFSETS,
    },
    {
      persona: persona(
        DEMO_VISITORS.human,
        { ...humanProfile(), adblock: 'Yes', adblock_extension: 'uBlock Origin', score: 0.02 },
        place('GB', 'England', 'Manchester'),
        [
          device('mobile', 'iPhone', ['iOS', '18.1'], ['Safari', '18.1'], [390, 844]),
          device(
            'desktop',
            'Desktop',
            ['Windows', '11'],
            ['Chrome', '131.0.6778.86'],
            [1920, 1080],
            ['uBlock Origin', 'Grammarly'],
          ),
        ],
        ['81.2.69.160'],
        { company: { ...(COMPANIES.find((c) => c.name === 'Initech') ?? COMPANIES[0]!) } },
      ),
      minutesAgo: STANDARD_OFFSETS,
      paths: [
        '/',
        '/pricing',
        '/products/trail-running-shoes',
        '/cart',
        '/checkout',
        '/checkout/success',
        '/blog/layering-101',
        '/',
      ],
    },
    {
      persona: persona(
        DEMO_VISITORS.unknown,
        unknownProfile(),
        place('FR', 'Île-de-France', 'Paris'),
        [device('desktop', 'Desktop', ['Windows', '10'], ['Edge', '131.0.2903.51'], [1366, 768])],
        ['88.172.4.19'],
        { kind: 'unknown' },
      ),
      minutesAgo: STANDARD_OFFSETS,
    },
  ];
}

/** The fixed visitors' personas and visits, independent of the seed (their dates follow `frame`). */
export function fixtureVisits(frame: TimeFrame): { personas: Persona[]; visits: Visit[] } {
  const personas: Persona[] = [];
  const visits: Visit[] = [];
  const oldest = frame.nowMs - frame.days * DAY_MS;
  for (const { persona: p, minutesAgo, paths } of fixtures()) {
    personas.push(p);
    const rng = new Random(`fixture:${p.id}`);
    minutesAgo.forEach((minutes, i) => {
      // Offset 0 lands today (UTC) even just after midnight.
      const time = minutes === 0 ? Math.max(frame.todayStart, frame.nowMs - 60_000) : frame.nowMs - minutes * 60_000;
      if (time < oldest) return;
      const overrides: VisitOverrides = {
        ...(paths ? { path: paths[i % paths.length] } : {}),
        device: p.devices[i % p.devices.length],
        ...(p.kind === 'scraper' || p.id === DEMO_VISITORS.attacker
          ? { source: 'direct', channel: 'Direct' as const, campaign: null }
          : {}),
      };
      visits.push(
        makeVisit(
          rng,
          p,
          Math.floor(time / 1000) * 1000,
          `vs_${p.id.slice(2)}_${String(i + 1).padStart(2, '0')}`,
          overrides,
        ),
      );
    });
  }
  return { personas, visits };
}

interface SpecialSpec {
  readonly daysAgo: readonly number[];
  readonly overrides: VisitOverrides;
}

/** Rare visits with hostile strings: a campaign that would ping a channel, one with emoji, a page path holding a Slack link. */
export const SPECIALS: readonly SpecialSpec[] = [
  { daysAgo: [1, 3, 5, 20, 40], overrides: { source: 'newsletter', channel: 'Email', campaign: HOSTILE_CAMPAIGN } },
  { daysAgo: [2, 4, 6, 30], overrides: { source: 'twitter', channel: 'Social', campaign: EMOJI_CAMPAIGN } },
  { daysAgo: [1, 2, 6], overrides: { source: 'reddit', channel: 'Social', campaign: null, path: HOSTILE_PAGE_PATH } },
];

/** The special visits, each by a (seeded) random ordinary human visitor. */
export function specialVisits(rng: Random, humans: readonly Persona[], frame: TimeFrame, newId: () => string): Visit[] {
  const visits: Visit[] = [];
  if (humans.length === 0) return visits;
  for (const special of SPECIALS) {
    for (const dayAgo of special.daysAgo) {
      if (dayAgo >= frame.days) continue;
      const persona = rng.pick(humans);
      visits.push(makeVisit(rng, persona, timeOnDay(rng, dayAgo, frame), newId(), special.overrides));
    }
  }
  return visits;
}
