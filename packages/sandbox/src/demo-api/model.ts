/**
 * The records the demo API serves, and the per-visit facts derived from a
 * visit once (day key, grouping labels, lower-cased filter values) so that
 * filtering and grouping never recompute them.
 */

import type { DeviceType } from './devices.js';

export interface Company {
  name: string;
  domain: string;
  industry: string;
  /** Employee band, e.g. "51-200". */
  size: string;
}

export interface Visitor {
  id: string;
  /** ISO 8601 UTC: the date of the visitor's first visit in the data set. */
  first_seen: string;
  /** ISO 8601 UTC: the date of the visitor's latest visit in the data set. */
  last_seen: string;
  company?: Company;
}

export interface VisitBrowser {
  name: string;
  version: string;
  extensions: string[];
}

export interface VisitDevice {
  type: DeviceType;
  name: string;
  os: { name: string; version: string };
}

export interface VisitLocation {
  country: string;
  country_code: string;
  state: string;
  city: string;
}

export interface VisitTrafficSource {
  source: string;
  channel: string;
  campaign: string | null;
  source_id: string;
  channel_id: string;
  campaign_id: string | null;
}

export interface Visit {
  id: string;
  visitor_id: string;
  /** ISO 8601 UTC with milliseconds. */
  date: string;
  url: string;
  /** Full URL, or "" for direct traffic. */
  referrer: string;
  ip: string;
  timezone: string;
  /** Seconds on site; an extra field beyond the spec, the basis of the averages. */
  duration: number;
  browser: VisitBrowser;
  device: VisitDevice;
  location: VisitLocation;
  screen: { width: number; height: number };
  trafficSource: VisitTrafficSource;
  /** utm_* parameters, or (about 10 %) the raw query string. */
  params: Record<string, string> | string;
}

/** Bot-status and VPN flags. */
export type Flag = 'True' | 'False' | 'Unknown';
/** The adblock flag. */
export type AdblockFlag = 'Yes' | 'No' | 'Unknown';

export interface ScraperExtension {
  id: string;
  name: string;
}

export interface SecurityProfile {
  adblock: AdblockFlag;
  /** Name of the ad-blocking extension, or "". */
  adblock_extension: string;
  is_abuser: Flag;
  is_attacker: Flag;
  is_proxy: Flag;
  is_threat: Flag;
  vpn: Flag;
  /** 0–1; humans 0–0.3, scrapers 0.7–0.99. */
  score: number;
  /** HUMAN, BOT, SCRAPER, CRAWLER, or Unknown. */
  visitor_type: string;
  scraper_extension_list: ScraperExtension[];
}

/** The filterable attributes of a visit, lower-cased. Keys are `object.field`. */
export const FILTER_KEYS = [
  'country.name',
  'country.code',
  'country.label',
  'state.name',
  'state.label',
  'city.name',
  'city.label',
  'page.name',
  'page.url',
  'source.name',
  'channel.name',
  'campaign.name',
  'browser.name',
  'browser.version',
  'device.name',
  'device.type',
  'os.name',
  'os.version',
  'visitor.id',
  'ip.address',
] as const;

export type FilterKey = (typeof FILTER_KEYS)[number];

export interface VisitFacts {
  /** Epoch milliseconds of `date`. */
  readonly time: number;
  /** UTC calendar day, YYYY-MM-DD. */
  readonly day: string;
  /** Country code, e.g. "FR". */
  readonly countryLabel: string;
  /** "State, CC". */
  readonly stateLabel: string;
  /** "City, State, CC". */
  readonly cityLabel: string;
  /** The URL without query string or fragment. */
  readonly pageUrl: string;
  /** The path without query string or fragment, e.g. "/pricing". */
  readonly pagePath: string;
  /** Lower-cased filter values; null when the visit has no such value (e.g. no campaign). */
  readonly lower: Readonly<Record<FilterKey, string | null>>;
  /** Lower-cased extension names. */
  readonly extensions: readonly string[];
}

export interface VisitEntry {
  readonly visit: Visit;
  readonly facts: VisitFacts;
}

const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Splits a URL into the URL and the path, both without query string and fragment. */
export function pageOf(url: string): { pageUrl: string; pagePath: string } {
  let end = url.length;
  const q = url.indexOf('?');
  if (q >= 0) end = q;
  const h = url.indexOf('#');
  if (h >= 0 && h < end) end = h;
  const pageUrl = url.slice(0, end);
  const origin = ORIGIN.exec(pageUrl);
  const pagePath = (origin ? pageUrl.slice(origin[0].length) : pageUrl) || '/';
  return { pageUrl, pagePath };
}

/**
 * Shared copies of derived strings: most values repeat across visits (a few
 * hundred cities, ~150 pages…), so each lower-cased form and label is kept once.
 */
const interned = new Map<string, string>();
function intern(value: string): string {
  const known = interned.get(value);
  if (known !== undefined) return known;
  if (interned.size >= 100_000) interned.clear();
  interned.set(value, value);
  return value;
}

const lowered = new Map<string, string>();
function lc(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  let lower = lowered.get(value);
  if (lower === undefined) {
    lower = intern(value.toLowerCase());
    if (lowered.size >= 100_000) lowered.clear();
    lowered.set(value, lower);
  }
  return lower;
}

const CANONICAL_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Labels {
  readonly country: string;
  readonly state: string;
  readonly city: string;
}
const labelCache = new Map<string, Map<string, Map<string, Labels>>>();

/** Grouping labels: countries "CC", states "State, CC", cities "City, State, CC". */
function labelsOf({ country_code: code, state, city }: VisitLocation): Labels {
  let states = labelCache.get(code);
  if (!states) labelCache.set(code, (states = new Map<string, Map<string, Labels>>()));
  let cities = states.get(state);
  if (!cities) states.set(state, (cities = new Map<string, Labels>()));
  let labels = cities.get(city);
  if (!labels) {
    labels = { country: code, state: `${state}, ${code}`, city: `${city}, ${state}, ${code}` };
    cities.set(city, labels);
  }
  return labels;
}

const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

function lowerFields(
  visit: Visit,
  countryLabel: string,
  stateLabel: string,
  cityLabel: string,
  pagePath: string,
  pageUrl: string,
): Record<FilterKey, string | null> {
  const { location, trafficSource, browser, device } = visit;
  return {
    'country.name': lc(location.country),
    'country.code': lc(location.country_code),
    'country.label': lc(countryLabel),
    'state.name': lc(location.state),
    'state.label': lc(stateLabel),
    'city.name': lc(location.city),
    'city.label': lc(cityLabel),
    'page.name': lc(pagePath),
    'page.url': lc(pageUrl),
    'source.name': lc(trafficSource.source),
    'channel.name': lc(trafficSource.channel),
    'campaign.name': lc(trafficSource.campaign),
    'browser.name': lc(browser.name),
    'browser.version': lc(browser.version),
    'device.name': lc(device.name),
    'device.type': lc(device.type),
    'os.name': lc(device.os.name),
    'os.version': lc(device.os.version),
    'visitor.id': lc(visit.visitor_id),
    'ip.address': lc(visit.ip),
  };
}

/** Facts of one visit. The lower-cased filter values are computed on first use (only filtered queries need them). */
class Facts implements VisitFacts {
  readonly time: number;
  readonly day: string;
  readonly countryLabel: string;
  readonly stateLabel: string;
  readonly cityLabel: string;
  readonly pageUrl: string;
  readonly pagePath: string;
  private lowerCache: Readonly<Record<FilterKey, string | null>> | undefined;
  private extensionCache: readonly string[] | undefined;

  constructor(private readonly visit: Visit) {
    this.time = Date.parse(visit.date);
    // A canonical ISO date (what toISOString gives) already starts with its UTC day.
    this.day = CANONICAL_DATE.test(visit.date)
      ? intern(visit.date.slice(0, 10))
      : intern(new Date(this.time).toISOString().slice(0, 10));
    const labels = labelsOf(visit.location);
    this.countryLabel = labels.country;
    this.stateLabel = labels.state;
    this.cityLabel = labels.city;
    const page = pageOf(visit.url);
    this.pageUrl = intern(page.pageUrl);
    this.pagePath = intern(page.pagePath);
  }

  get lower(): Readonly<Record<FilterKey, string | null>> {
    this.lowerCache ??= lowerFields(
      this.visit,
      this.countryLabel,
      this.stateLabel,
      this.cityLabel,
      this.pagePath,
      this.pageUrl,
    );
    return this.lowerCache;
  }

  get extensions(): readonly string[] {
    const names = this.visit.browser.extensions;
    this.extensionCache ??= names.length === 0 ? NO_EXTENSIONS : names.map((e) => lc(e) as string);
    return this.extensionCache;
  }
}

export function computeFacts(visit: Visit): VisitFacts {
  return new Facts(visit);
}
