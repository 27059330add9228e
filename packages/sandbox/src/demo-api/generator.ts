/**
 * Builds the visits of believable visitors (personas.ts: a home, devices, a security
 * profile, an activity level) from the catalog, with a seeded Random: when they come,
 * where from, which pages and for how long.
 */

import {
  CAMPAIGN_CHANCE,
  PAGE_QUERIES,
  REDDIT_COMMUNITIES,
  SITE_ORIGIN,
  UTM_MEDIUM,
  campaignId,
  channelId,
  sourceId,
  type Channel,
} from './catalog.js';
import type { Visit } from './model.js';
import { Random } from './random.js';
import {
  type DeviceSetup,
  type Persona,
  PAGE_TABLE,
  PRODUCT_PAGE_TABLE,
  SOURCE_TABLE,
  DIRECT,
  CAMPAIGN_TABLE,
  HOUR_WEIGHTS,
  HOUR_TABLE,
  sourceByName,
  randomPlace,
  randomIp,
  scriptDevice,
} from './personas.js';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

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
  const device: DeviceSetup =
    overrides.device ??
    (scraper && rng.chance(0.3)
      ? scriptDevice(rng)
      : persona.devices[persona.devices.length > 1 && rng.chance(0.25) ? 1 : 0]!);

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
