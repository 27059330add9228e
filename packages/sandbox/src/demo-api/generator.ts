/**
 * Builds believable visitors ("personas": a home, devices, a security profile,
 * an activity level) and their visits from the catalog, with a seeded Random.
 */

import {
  ADBLOCK_EXTENSIONS,
  BROWSER_VERSIONS,
  BROWSERS_BY_OS,
  COMMON_EXTENSIONS,
  DEVICE_TYPE_WEIGHTS,
  DEVICES,
  EXTENSION_BROWSERS,
  OS_VERSIONS,
  SCRAPER_EXTENSIONS,
  SCREENS,
  SCRIPT_CLIENTS,
  extensionId,
  type DeviceSpec,
  type DeviceType,
} from './devices.js';
import {
  CAMPAIGN_CHANCE,
  CAMPAIGNS,
  COMPANIES,
  PAGE_QUERIES,
  PAGES,
  REDDIT_COMMUNITIES,
  SITE_ORIGIN,
  SOURCES,
  UTM_MEDIUM,
  campaignId,
  channelId,
  sourceId,
  type Channel,
  type SourceSpec,
} from './catalog.js';
import { COUNTRIES, type CountrySpec, type StateSpec } from './places.js';
import type { Company, Flag, SecurityProfile, Visit } from './model.js';
import { Random, WeightedTable } from './random.js';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface Place {
  readonly country: CountrySpec;
  readonly state: StateSpec;
  readonly city: string;
  /** The visit `location` object of this place, shared by its visits. */
  readonly location: Visit['location'];
}

const placeCache = new Map<string, Place>();

/** The one Place object of a catalog city. */
export function placeOf(country: CountrySpec, state: StateSpec, city: string): Place {
  const key = `${country.code}|${state.name}|${city}`;
  let place = placeCache.get(key);
  if (!place) {
    const location = Object.freeze({ country: country.name, country_code: country.code, state: state.name, city });
    place = { country, state, city, location };
    placeCache.set(key, place);
  }
  return place;
}

export interface DeviceSetup {
  readonly type: DeviceType;
  readonly name: string;
  readonly os: { readonly name: string; readonly version: string };
  readonly browser: { readonly name: string; readonly version: string };
  readonly extensions: readonly string[];
  readonly screen: { readonly width: number; readonly height: number };
}

export type PersonaKind = 'human' | 'scraper' | 'unknown';

export interface Persona {
  readonly id: string;
  readonly kind: PersonaKind;
  readonly company?: Company;
  readonly profile: SecurityProfile;
  readonly home: Place;
  readonly devices: readonly DeviceSetup[];
  readonly ips: readonly string[];
  /** Relative activity: how many visits this persona gets. */
  readonly weight: number;
  /** Days before today of the first active day. */
  readonly arrivalAgo: number;
  /** Number of days the persona stays active (from arrival towards today). */
  readonly spanDays: number;
}

/** The clock of a generation run: everything is relative to `nowMs`. */
export interface TimeFrame {
  readonly nowMs: number;
  /** 00:00 UTC of the day containing now. */
  readonly todayStart: number;
  readonly days: number;
}

export function timeFrame(now: Date, days: number): TimeFrame {
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  const todayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return { nowMs, todayStart, days };
}

// ---------------------------------------------------------------- tables (built once)

const COUNTRY_TABLE = new WeightedTable(COUNTRIES.map((c) => [c, c.weight] as const));
const STATE_TABLES = new Map(
  COUNTRIES.map((c) => [c, new WeightedTable(c.states.map((s, i) => [s, 1 / (i + 1) ** 0.7] as const))]),
);
const CITY_TABLES = new Map(
  COUNTRIES.flatMap((country) =>
    country.states.map(
      (state) =>
        [
          state,
          new WeightedTable(
            state.cities.map((city, i) => [placeOf(country, state, city), 1 / (i + 1) ** 0.9] as const),
          ),
        ] as const,
    ),
  ),
);
const DEVICE_TYPE_TABLE = new WeightedTable(DEVICE_TYPE_WEIGHTS);
const DEVICE_TABLES = new Map<DeviceType, WeightedTable<DeviceSpec>>(
  (['desktop', 'mobile', 'tablet'] as const).map((type) => [
    type,
    new WeightedTable(DEVICES.filter((d) => d.type === type).map((d) => [d, d.weight] as const)),
  ]),
);
const PAGE_TABLE = new WeightedTable(PAGES);
const PRODUCT_PAGE_TABLE = new WeightedTable(
  PAGES.filter(([path]) => path.startsWith('/products/')).map(([path]) => [path, 1] as const),
);
const SOURCE_TABLE = new WeightedTable(SOURCES.map((s) => [s, s.weight] as const));
const DIRECT = SOURCES.find((s) => s.name === 'direct') as SourceSpec;
const CAMPAIGN_TABLE = new WeightedTable(CAMPAIGNS);
const ADBLOCK_TABLE = new WeightedTable(ADBLOCK_EXTENSIONS);
const SCRIPT_TABLE = new WeightedTable(SCRIPT_CLIENTS);
/** Visits by hour of the (UTC) day: quiet nights, busy afternoons. */
const HOUR_WEIGHTS = [2, 1.5, 1, 1, 1, 1.5, 2.5, 4, 6, 7, 8, 8, 8, 8.5, 9, 9, 9, 8.5, 8, 7, 6, 5, 4, 3] as const;
const HOUR_TABLE = new WeightedTable(HOUR_WEIGHTS.map((w, hour) => [hour, w] as const));

export function sourceByName(name: string): SourceSpec | undefined {
  return SOURCES.find((s) => s.name === name);
}

// ---------------------------------------------------------------- building blocks

export function randomPlace(rng: Random): Place {
  const country = COUNTRY_TABLE.sample(rng);
  const state = (STATE_TABLES.get(country) as WeightedTable<StateSpec>).sample(rng);
  return (CITY_TABLES.get(state) as WeightedTable<Place>).sample(rng);
}

export function randomIp(rng: Random): string {
  if (rng.chance(0.1)) {
    const prefix = rng.pick(['2a02', '2a01', '2600', '2603', '2406', '2804']);
    const group = () => rng.int(0, 0xffff).toString(16);
    return `${prefix}:${group()}:${group()}:${group()}::${group()}`;
  }
  let first: number;
  do first = rng.int(11, 223);
  while (
    first === 100 ||
    first === 127 ||
    first === 169 ||
    first === 172 ||
    first === 192 ||
    first === 198 ||
    first === 203
  );
  return `${first}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

function screenFor(rng: Random, type: DeviceType): { width: number; height: number } {
  const [width, height] = rng.pick(SCREENS[type]);
  return { width, height };
}

function versionOf(rng: Random, browser: string): string {
  return rng.pick(BROWSER_VERSIONS[browser] ?? ['1.0']);
}

/** A device, OS and browser that go together (Safari only on Apple, Samsung Internet only on Galaxy…). */
export function randomDevice(rng: Random, type: DeviceType = DEVICE_TYPE_TABLE.sample(rng)): DeviceSetup {
  const spec = (DEVICE_TABLES.get(type) as WeightedTable<DeviceSpec>).sample(rng);
  const osName = rng.weighted(spec.os);
  let browser = rng.weighted(BROWSERS_BY_OS[osName] ?? [['Chrome', 1]]);
  if (browser === 'Samsung Internet' && spec.brand !== 'samsung') browser = 'Chrome';
  return {
    type,
    name: spec.name,
    os: { name: osName, version: rng.pick(OS_VERSIONS[osName] ?? ['1']) },
    browser: { name: browser, version: versionOf(rng, browser) },
    extensions: [],
    screen: screenFor(rng, type),
  };
}

function scraperDevice(rng: Random, extensions: readonly string[]): DeviceSetup {
  const browser = rng.weighted([
    ['HeadlessChrome', 60],
    ['Chrome', 30],
    ['Edge', 10],
  ] as const);
  const osName = rng.weighted([
    ['Linux', 65],
    ['Windows', 35],
  ] as const);
  const screen =
    browser === 'HeadlessChrome' && rng.chance(0.6) ? { width: 800, height: 600 } : screenFor(rng, 'desktop');
  return {
    type: 'desktop',
    name: 'Desktop',
    os: { name: osName, version: rng.pick(OS_VERSIONS[osName] ?? ['1']) },
    browser: { name: browser, version: versionOf(rng, browser) },
    extensions,
    screen,
  };
}

/** A scripted client (python-requests, curl…): no extensions, no screen. */
function scriptDevice(rng: Random): DeviceSetup {
  const browser = SCRIPT_TABLE.sample(rng);
  return {
    type: 'desktop',
    name: 'Desktop',
    os: { name: 'Linux', version: rng.pick(OS_VERSIONS['Linux'] ?? ['6']) },
    browser: { name: browser, version: versionOf(rng, browser) },
    extensions: [],
    screen: { width: 0, height: 0 },
  };
}

const flag = (value: boolean): Flag => (value ? 'True' : 'False');
const round2 = (n: number): number => Math.round(n * 100) / 100;

export function unknownProfile(): SecurityProfile {
  return {
    adblock: 'Unknown',
    adblock_extension: '',
    is_abuser: 'Unknown',
    is_attacker: 'Unknown',
    is_proxy: 'Unknown',
    is_threat: 'Unknown',
    vpn: 'Unknown',
    score: 0,
    visitor_type: 'Unknown',
    scraper_extension_list: [],
  };
}

export function humanProfile(): SecurityProfile {
  return {
    adblock: 'No',
    adblock_extension: '',
    is_abuser: 'False',
    is_attacker: 'False',
    is_proxy: 'False',
    is_threat: 'False',
    vpn: 'False',
    score: 0.05,
    visitor_type: 'HUMAN',
    scraper_extension_list: [],
  };
}

const withExtensions = (device: DeviceSetup, extensions: readonly string[]): DeviceSetup => ({ ...device, extensions });

/**
 * One visitor. About 3 % answer "Unknown" to everything, 5 % are scrapers
 * (score 0.7–0.99, bot-ish browsers, scraper extensions, many short visits),
 * the rest are humans (score 0–0.3) with ~3 % attackers, ~3 % abusers,
 * ~4 % threats, ~6 % proxies, ~10 % VPN and ~35 % ad blockers.
 */
export function makePersona(rng: Random, id: string, days: number): Persona {
  const roll = rng.next();
  const kind: PersonaKind = roll < 0.03 ? 'unknown' : roll < 0.08 ? 'scraper' : 'human';
  const scraper = kind === 'scraper';
  const home = randomPlace(rng);
  const company = rng.chance(0.3) ? { ...rng.pick(COMPANIES) } : undefined;

  const attacker = rng.chance(scraper ? 0.15 : 0.025);
  const abuser = rng.chance(scraper ? 0.3 : 0.016);
  const threat = attacker ? rng.chance(0.8) : abuser ? rng.chance(0.4) : rng.chance(0.005);
  const proxy = rng.chance(attacker || scraper ? 0.3 : 0.04);
  const vpn = rng.chance(attacker ? 0.5 : 0.09);
  const adblock = !scraper && rng.chance(0.37);

  let devices: DeviceSetup[];
  let adblockExtension = '';
  const scraperExtensions = scraper ? rng.sample(SCRAPER_EXTENSIONS, rng.int(1, 3)) : [];
  if (scraper) {
    devices = [scraperDevice(rng, scraperExtensions)];
  } else {
    const primary = randomDevice(rng);
    devices = [primary];
    if (rng.chance(0.3)) devices.push(randomDevice(rng, primary.type === 'desktop' ? 'mobile' : 'desktop'));
    const extensions: string[] = [];
    if (adblock) extensions.push(ADBLOCK_TABLE.sample(rng));
    for (const [name, probability] of COMMON_EXTENSIONS) if (rng.chance(probability)) extensions.push(name);
    devices = devices.map((d) =>
      d.type === 'desktop' && EXTENSION_BROWSERS.has(d.browser.name) ? withExtensions(d, extensions) : d,
    );
    if (adblock && devices.some((d) => d.extensions.length > 0)) adblockExtension = extensions[0] ?? '';
  }

  const profile: SecurityProfile =
    kind === 'unknown'
      ? unknownProfile()
      : {
          adblock: adblock ? 'Yes' : 'No',
          adblock_extension: adblockExtension,
          is_abuser: flag(abuser),
          is_attacker: flag(attacker),
          is_proxy: flag(proxy),
          is_threat: flag(threat),
          vpn: flag(vpn),
          score: scraper
            ? round2(rng.float(0.7, 0.99))
            : attacker
              ? round2(rng.float(0.15, 0.3))
              : round2(rng.next() ** 2 * 0.3),
          visitor_type: scraper
            ? rng.weighted([
                ['BOT', 40],
                ['SCRAPER', 45],
                ['CRAWLER', 15],
              ] as const)
            : 'HUMAN',
          scraper_extension_list: scraperExtensions.map((name) => ({ id: extensionId(name), name })),
        };

  const ips = Array.from({ length: rng.int(1, 3) }, () => randomIp(rng));
  const activity = Math.min(15, (1 - rng.next()) ** (-1 / 1.6));
  let weight = activity * (scraper ? 5 : kind === 'unknown' ? 0.6 : 1);
  // An active window of `span` days placed so that every day of the history is equally likely to be
  // covered (windows may start before the history or end after today and are clipped), with a slight
  // lean towards recent days.
  const span = rng.chance(scraper ? 0.1 : 0.3) ? 1 : 1 + Math.floor(-Math.log(1 - rng.next()) * (scraper ? 10 : 25));
  const lastStart = days - 1 + span - 1;
  let start = Math.floor((lastStart + 1) * rng.next());
  if (rng.chance((0.3 * start) / Math.max(1, lastStart))) start = Math.floor((lastStart + 1) * rng.next());
  const arrivalAgo = Math.min(days - 1, start);
  const spanDays = arrivalAgo - Math.max(0, start - span + 1) + 1;
  // A window cut by the edges of the history keeps only its share of the visits.
  weight *= spanDays / span;

  return { id, kind, ...(company ? { company } : {}), profile, home, devices, ips, weight, arrivalAgo, spanDays };
}

function hourTime(rng: Random, dayStart: number): number {
  return dayStart + HOUR_TABLE.sample(rng) * HOUR_MS + rng.int(0, 3599) * 1000;
}

/** A time on the day `dayAgo` days before today (UTC), weighted to daytime, never after now. */
export function timeOnDay(rng: Random, dayAgo: number, frame: TimeFrame): number {
  const dayStart = frame.todayStart - dayAgo * DAY_MS;
  for (let attempt = 0; attempt < 4; attempt++) {
    const t = hourTime(rng, dayStart);
    if (t <= frame.nowMs) return t;
  }
  const seconds = Math.floor((frame.nowMs - dayStart) / 1000);
  return dayStart + rng.int(0, seconds) * 1000;
}

/** The share of a day's visits that fall before now on today (UTC): the hours gone by, by HOUR_WEIGHTS. */
export function todayShare(frame: TimeFrame): number {
  const hours = (frame.nowMs - frame.todayStart) / HOUR_MS;
  const whole = Math.floor(hours);
  const before = HOUR_WEIGHTS.slice(0, whole).reduce((a, b) => a + b, 0) + (HOUR_WEIGHTS[whole] ?? 0) * (hours - whole);
  return before / HOUR_WEIGHTS.reduce((a, b) => a + b, 0);
}

/**
 * How many visits a persona gets, relative to the others: its weight, less the part of
 * today that has not happened yet when its window reaches today (else a persona active
 * today alone would have a whole day's visits in the hours gone by).
 */
export function visitWeight(persona: Persona, frame: TimeFrame): number {
  if (persona.arrivalAgo + 1 !== persona.spanDays) return persona.weight;
  return (persona.weight * (persona.spanDays - 1 + todayShare(frame))) / persona.spanDays;
}

/**
 * A persona first seen today has come in the hours gone by: as many as the share of the
 * day they make up stay; the others arrive on a day of the history instead (for a day
 * only), so today has its share of new visitors rather than a whole day's.
 */
export function arrivedByNow(rng: Random, persona: Persona, frame: TimeFrame): Persona {
  const stays = rng.next() < todayShare(frame);
  const day = rng.int(1, Math.max(1, frame.days - 1));
  if (persona.arrivalAgo !== 0 || stays || frame.days < 2) return persona;
  return { ...persona, arrivalAgo: day, spanDays: 1 };
}

/**
 * A time within the persona's active window, a little quieter at weekends.
 * A time after now draws the day again, so today gets its share of the
 * hours gone by rather than a whole day's visits.
 */
export function visitTime(rng: Random, persona: Persona, frame: TimeFrame): number {
  const window = Math.max(1, Math.min(persona.spanDays, persona.arrivalAgo + 1));
  for (let attempt = 0; attempt < 6; attempt++) {
    let dayAgo = persona.arrivalAgo - Math.floor(rng.next() * window);
    const weekday = new Date(frame.todayStart - dayAgo * DAY_MS).getUTCDay();
    if ((weekday === 0 || weekday === 6) && rng.chance(0.3))
      dayAgo = persona.arrivalAgo - Math.floor(rng.next() * window);
    const t = hourTime(rng, frame.todayStart - dayAgo * DAY_MS);
    if (t <= frame.nowMs) return t;
  }
  return timeOnDay(rng, persona.arrivalAgo - Math.floor(rng.next() * window), frame);
}

function queryString(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
}

function durationFor(rng: Random, persona: Persona): number {
  if (persona.kind === 'scraper') return rng.int(0, 4);
  if (rng.chance(0.25)) return rng.int(0, 10);
  return Math.max(1, Math.min(3600, Math.round(Math.exp(Math.log(75) + rng.normal() * 0.9))));
}

/*
 * Generated visits share their nested objects (one browser/device object per
 * persona device, one location per place, one trafficSource per combination):
 * it saves most of the memory and garbage of 40,000 visits. They are frozen,
 * since records are read-only.
 */
const deviceCache = new WeakMap<
  DeviceSetup,
  { browser: Visit['browser']; device: Visit['device']; screen: Visit['screen'] }
>();
function deviceEntry(setup: DeviceSetup): {
  browser: Visit['browser'];
  device: Visit['device'];
  screen: Visit['screen'];
} {
  let entry = deviceCache.get(setup);
  if (!entry) {
    entry = {
      browser: Object.freeze({
        name: setup.browser.name,
        version: setup.browser.version,
        extensions: Object.freeze([...setup.extensions]) as string[],
      }),
      device: Object.freeze({
        type: setup.type,
        name: setup.name,
        os: Object.freeze({ name: setup.os.name, version: setup.os.version }),
      }),
      screen: Object.freeze({ width: setup.screen.width, height: setup.screen.height }),
    };
    deviceCache.set(setup, entry);
  }
  return entry;
}
const deviceParts = (setup: DeviceSetup): { browser: Visit['browser']; device: Visit['device'] } => {
  const { browser, device } = deviceEntry(setup);
  return { browser, device };
};
const screenOf = (setup: DeviceSetup): Visit['screen'] => deviceEntry(setup).screen;

const trafficCache = new Map<string, Visit['trafficSource']>();
function trafficSourceOf(source: string, channel: string, campaign: string | null): Visit['trafficSource'] {
  const key = `${source}|${channel}|${campaign ?? ''}|${campaign === null ? 0 : 1}`;
  let traffic = trafficCache.get(key);
  if (!traffic) {
    traffic = Object.freeze({
      source,
      channel,
      campaign,
      source_id: sourceId(source),
      channel_id: channelId(channel),
      campaign_id: campaign === null ? null : campaignId(campaign),
    });
    trafficCache.set(key, traffic);
  }
  return traffic;
}

export interface VisitOverrides {
  readonly source?: string;
  readonly channel?: Channel;
  /** A campaign name, or null for none. */
  readonly campaign?: string | null;
  readonly path?: string;
  readonly device?: DeviceSetup;
}

export function makeVisit(
  rng: Random,
  persona: Persona,
  time: number,
  id: string,
  overrides: VisitOverrides = {},
): Visit {
  const scraper = persona.kind === 'scraper';
  const device =
    overrides.device ??
    (scraper && rng.chance(0.3)
      ? scriptDevice(rng)
      : ((persona.devices.length > 1 && rng.chance(0.25) ? persona.devices[1] : persona.devices[0]) as DeviceSetup));

  let place = persona.home;
  let ip = rng.pick(persona.ips);
  const masked = persona.profile.vpn === 'True' || persona.profile.is_proxy === 'True';
  if (masked && rng.chance(0.45)) {
    place = randomPlace(rng);
    ip = randomIp(rng);
  }

  const source =
    (overrides.source !== undefined ? sourceByName(overrides.source) : undefined) ??
    (scraper && rng.chance(0.8) ? DIRECT : SOURCE_TABLE.sample(rng));
  const channel: Channel = overrides.channel ?? rng.weighted(source.channels);
  const campaign =
    overrides.campaign !== undefined
      ? overrides.campaign
      : rng.chance(CAMPAIGN_CHANCE[channel])
        ? CAMPAIGN_TABLE.sample(rng)
        : null;
  const path = overrides.path ?? (scraper && rng.chance(0.7) ? PRODUCT_PAGE_TABLE.sample(rng) : PAGE_TABLE.sample(rng));

  let params: Record<string, string> | string = {};
  let query = '';
  if (campaign !== null) {
    const utm: Record<string, string> = {
      utm_source: source.name,
      utm_medium: UTM_MEDIUM[channel],
      utm_campaign: campaign,
    };
    if (rng.chance(0.3)) utm['utm_content'] = rng.pick(['hero', 'banner', 'cta', 'footer-link', 'video']);
    if (channel === 'Paid Search' && rng.chance(0.5))
      utm['utm_term'] = rng.pick(['running shoes', 'rain jacket', 'backpack sale', 'merino shirt']);
    params = rng.chance(0.1) ? `${queryString(utm)}&ref=${rng.base36(6)}` : utm;
    if (rng.chance(0.7)) query = `?${queryString(utm)}`;
  } else if (rng.chance(0.1)) {
    params = rng.pick([
      `ref=${source.name}`,
      `gclid=${rng.base36(20)}`,
      `fbclid=${rng.base36(24)}`,
      'ref=nav&lang=en',
      `mc_eid=${rng.hex(10)}`,
    ]);
  } else if (rng.chance(0.12)) {
    query = rng.pick(PAGE_QUERIES);
  }

  const referrer = source.referrer.includes('*')
    ? source.referrer.replace('*', source.name === 'reddit' ? rng.pick(REDDIT_COMMUNITIES) : rng.base36(10))
    : source.referrer;

  return {
    id,
    visitor_id: persona.id,
    date: new Date(time).toISOString(),
    url: `${SITE_ORIGIN}${path}${query}`,
    referrer,
    ip,
    timezone: persona.home.state.timezone,
    duration: durationFor(rng, persona),
    ...deviceParts(device),
    location: place.location,
    screen: screenOf(device),
    trafficSource: trafficSourceOf(source.name, channel, campaign),
    params,
  };
}
