/** The demo's visitors: where they are, their devices and security profiles, and the personas they browse as. */
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
import { CAMPAIGNS, COMPANIES, PAGES, SOURCES, type SourceSpec } from './catalog.js';
import { COUNTRIES, type CountrySpec, type StateSpec } from './places.js';
import type { Company, Flag, SecurityProfile, Visit } from './model.js';
import { Random, WeightedTable } from './random.js';

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
export const PAGE_TABLE = new WeightedTable(PAGES);
export const PRODUCT_PAGE_TABLE = new WeightedTable(
  PAGES.filter(([path]) => path.startsWith('/products/')).map(([path]) => [path, 1] as const),
);
export const SOURCE_TABLE = new WeightedTable(SOURCES.map((s) => [s, s.weight] as const));
export const DIRECT = SOURCES.find((s) => s.name === 'direct') as SourceSpec;
export const CAMPAIGN_TABLE = new WeightedTable(CAMPAIGNS);
const ADBLOCK_TABLE = new WeightedTable(ADBLOCK_EXTENSIONS);
const SCRIPT_TABLE = new WeightedTable(SCRIPT_CLIENTS);
/** Visits by hour of the (UTC) day: quiet nights, busy afternoons. */
export const HOUR_WEIGHTS = [2, 1.5, 1, 1, 1, 1.5, 2.5, 4, 6, 7, 8, 8, 8, 8.5, 9, 9, 9, 8.5, 8, 7, 6, 5, 4, 3] as const;
export const HOUR_TABLE = new WeightedTable(HOUR_WEIGHTS.map((w, hour) => [hour, w] as const));

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
export function scriptDevice(rng: Random): DeviceSetup {
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
