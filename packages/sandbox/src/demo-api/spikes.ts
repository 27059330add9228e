/**
 * Changes the living demo produces on request, so an explanation of a change has something
 * true to find: a human spike (new ordinary visitors from a referrer the account has never
 * seen), a scraper wave (new scrapers on one page, from a common source) and a drop (one
 * source's visits taken out of an hour). Their visits are ordinary records of the data set,
 * so every answer of the demo API (the reports, /visits, /visitors, the security lookups)
 * shows them alike; and the demo API can count any period itself, for a test to compare an
 * explanation against.
 */
import { channelId, SITE_ORIGIN, SOURCE_LABELS, sourceId } from './catalog.js';
import type { Dataset } from './dataset.js';
import { pageOf, type SecurityProfile, type Visit } from './model.js';
import { hashString, Random } from './random.js';
import { siteUrl, visitorPrefix } from './site.js';

const HOUR = 3_600_000;

/** A source the data set has no visit from. */
export interface NewSource {
  /** Its name in the traffic reports (`/traffic/sources` name and label). */
  name: string;
  /** The referrer of its visits. */
  referrer: string;
  channel: string;
}

/** A human spike comes from the first of these the account has never seen. */
export const NEW_SOURCES: readonly NewSource[] = [
  { name: 'x.com', referrer: 'https://x.com/', channel: 'Social' },
  { name: 'bsky.app', referrer: 'https://bsky.app/', channel: 'Social' },
  { name: 'threads.net', referrer: 'https://www.threads.net/', channel: 'Social' },
  { name: 'lobste.rs', referrer: 'https://lobste.rs/', channel: 'Referral' },
  { name: 'mastodon.social', referrer: 'https://mastodon.social/', channel: 'Social' },
];

/** The shop's page a scraper wave takes by default (at another site, its own page for it: `/plans`). */
export const SCRAPED_PAGE = '/pricing';
/** The source a scraper wave comes from by default: the commonest. */
export const SCRAPER_SOURCE = 'direct';
/** A scraping score at or above this flags a visitor, as Lookout's default verdict reads it. */
export const FLAGGED_SCORE = 0.8;

export type SpikeRequest =
  /** `visits` visits by `visitors` (default: as many) new human visitors, all from a source new to the account. */
  | { kind: 'human'; hour: Date; visits: number; visitors?: number; source?: NewSource; before?: Date }
  /** `visits` visits on one page by `scrapers` (default one per 15 visits) new scrapers, from a source the account knows. */
  | { kind: 'scraper'; hour: Date; visits: number; scrapers?: number; page?: string; source?: string; before?: Date }
  /** Every visit from `source` (default: the hour's commonest) taken out of the hour, as if it never came. */
  | { kind: 'drop'; hour: Date; source?: string; before?: Date };

/** Visits and visitors of a span [from, to), and of those the security lookups flag (see `isFlagged`). */
interface SpanCounts {
  from: string;
  to: string;
  visits: number;
  visitors: number;
  flaggedVisits: number;
  flaggedVisitors: number;
}

/**
 * What a spike added (or a drop took out: its visits, visitors and flagged ones are those
 * removed), as the demo API counts it: its span is the hour asked for, up to `before` when
 * given; a spike's visitors are all new.
 */
export interface ProducedSpike extends SpanCounts {
  kind: 'human' | 'scraper' | 'drop';
  /** The source of every visit: `name` is the traffic reports' name, `label` their label. */
  source: { name: string; label: string; referrer: string; channel: string };
  /** The one page of every visit (a scraper wave): `url` as `/pages` reports it (`full_url`), `path` its path. */
  page?: { url: string; path: string };
  visitorIds: readonly string[];
  visitIds: readonly string[];
}

/** What the demo API's own data holds for a period, counted as its reports count. */
export interface PeriodCounts extends SpanCounts {
  /** Visits by source name (`/traffic/sources` name). */
  sources: Record<string, number>;
  /** Visits by page (`/pages` full_url). */
  pages: Record<string, number>;
  /** Visits by country (`/countries` label). */
  countries: Record<string, number>;
  /** Flagged visits by source name and by page. */
  flaggedSources: Record<string, number>;
  flaggedPages: Record<string, number>;
}

/**
 * Whether the security lookups flag a visitor the way Lookout reads them at medium or
 * above: an attacker, a threat or an abuser (bot-status), a scraping score of
 * FLAGGED_SCORE or more (scraping-status), or a scraper extension.
 */
export function isFlagged(p: SecurityProfile | undefined): boolean {
  return (
    !!p &&
    (p.is_attacker === 'True' ||
      p.is_threat === 'True' ||
      p.is_abuser === 'True' ||
      p.score >= FLAGGED_SCORE ||
      p.scraper_extension_list.length > 0)
  );
}

const clean = (p: SecurityProfile | undefined): boolean =>
  !!p &&
  p.visitor_type === 'HUMAN' &&
  p.score < 0.5 &&
  [p.is_attacker, p.is_threat, p.is_abuser, p.is_proxy, p.vpn].every((f) => f === 'False');

/** Everything of a visit but who, when, where from and which page. */
function look(
  visit: Visit,
): Omit<Visit, 'id' | 'visitor_id' | 'date' | 'url' | 'referrer' | 'trafficSource' | 'params'> {
  const {
    id: _id,
    visitor_id: _visitor,
    date: _date,
    url: _url,
    referrer: _referrer,
    trafficSource: _source,
    params: _params,
    ...rest
  } = structuredClone(visit);
  return rest;
}

function knownSource(dataset: Dataset, name: string): Visit | undefined {
  return dataset.visits.find((v) => v.trafficSource.source === name && v.trafficSource.campaign === null);
}

const seen = (dataset: Dataset, source: NewSource): boolean =>
  dataset.visits.some((v) => v.trafficSource.source === source.name || v.referrer === source.referrer);

/** The span a spike's visits fall in: the hour of `hour`, cut at `before`. */
function spanOf(hour: Date, before: Date | undefined): { from: number; to: number } {
  const from = Math.floor(hour.getTime() / HOUR) * HOUR;
  const to = Math.min(from + HOUR, before?.getTime() ?? Infinity);
  if (!(to > from)) throw new RangeError('a spike needs some of its hour before `before`');
  return { from, to };
}

/** `n` new visitor ids of a kind, after those the data set already has. */
function newIds(dataset: Dataset, kind: string, from: number, n: number): string[] {
  const base = `${visitorPrefix(dataset.site)}live_${kind}_${Math.floor(from / HOUR).toString(36)}_`;
  const ids: string[] = [];
  for (let k = 0; ids.length < n; k++) if (!dataset.getVisitor(base + k)) ids.push(base + k);
  return ids;
}

/**
 * Adds a spike to the data set: a function of the data set, the request and the seed.
 * Throws a RangeError for a request it cannot honour truly (a "new" source the account has
 * seen, a scraper wave from a source it has not, no visits).
 */
export function produceSpike(dataset: Dataset, request: SpikeRequest, seed = 42): ProducedSpike {
  if (request.kind === 'drop') return produceDrop(dataset, request);
  const visits = Math.floor(request.visits);
  if (!(visits >= 1)) throw new RangeError('a spike has at least one visit');
  const { from, to } = spanOf(request.hour, request.before);
  const rng = new Random(hashString(`${seed}:spike:${request.kind}:${from}:${to}:${visits}:${dataset.visits.length}`));
  const template = (): Visit => {
    const all = dataset.visits;
    let visit = all[rng.int(0, all.length - 1)]!;
    for (let i = 0; i < 50 && !clean(dataset.securityOf(visit.visitor_id)); i++)
      visit = all[rng.int(0, all.length - 1)]!;
    return visit;
  };
  const at = (i: number): Date => new Date(from + Math.floor(((i + 0.5) * (to - from)) / visits));

  if (request.kind === 'human') {
    const source = request.source ?? NEW_SOURCES.find((s) => !seen(dataset, s));
    if (!source) throw new RangeError('every new source of NEW_SOURCES is in the account already: name one');
    if (seen(dataset, source)) throw new RangeError(`${source.name} is in the account's history already: not new`);
    const count = Math.min(visits, Math.max(1, Math.floor(request.visitors ?? visits)));
    const trafficSource: Visit['trafficSource'] = {
      source: source.name,
      channel: source.channel,
      campaign: null,
      source_id: sourceId(source.name),
      channel_id: channelId(source.channel),
      campaign_id: null,
    };
    const people = newIds(dataset, 'spike', from, count).map((id) => {
      dataset.addVisitor({ id });
      return { id, like: template() };
    });
    const added = Array.from({ length: visits }, (_, i) => {
      const person = people[i % count]!;
      return dataset.addVisit({
        ...look(person.like),
        visitor_id: person.id,
        date: at(i),
        url: pageOf(person.like.url).pageUrl,
        referrer: source.referrer,
        trafficSource,
        params: {},
      });
    });
    return {
      kind: 'human',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      visits,
      visitors: count,
      flaggedVisits: 0,
      flaggedVisitors: 0,
      source: { ...source, label: SOURCE_LABELS[source.name] ?? source.name },
      visitorIds: people.map((p) => p.id),
      visitIds: added.map((v) => v.id),
    };
  }

  const sourceName = request.source ?? SCRAPER_SOURCE;
  const known = knownSource(dataset, sourceName);
  if (!known)
    throw new RangeError(`${sourceName} is not a source of the account: a scraper wave comes from a known one`);
  const path = request.page ?? pageOf(siteUrl(dataset.site, SITE_ORIGIN + SCRAPED_PAGE)).pagePath;
  if (!path.startsWith('/')) throw new RangeError(`a page is a path: "${path}"`);
  const url = dataset.site.origin + path;
  const count = Math.min(visits, Math.max(1, Math.floor(request.scrapers ?? Math.ceil(visits / 15))));
  const scrapers = newIds(dataset, 'scrape', from, count).map((id) => {
    dataset.addVisitor({
      id,
      security: {
        is_abuser: 'True',
        score: Math.round(rng.float(0.85, 0.99) * 100) / 100,
        visitor_type: 'SCRAPER',
      },
    });
    return { id, like: template() };
  });
  const added = Array.from({ length: visits }, (_, i) => {
    const scraper = scrapers[i % count]!;
    return dataset.addVisit({
      ...look(scraper.like),
      visitor_id: scraper.id,
      date: at(i),
      url,
      referrer: known.referrer,
      trafficSource: known.trafficSource,
      params: {},
      duration: rng.int(1, 4),
    });
  });
  const flagged = scrapers.filter((s) => isFlagged(dataset.securityOf(s.id)));
  const flaggedIds = new Set(flagged.map((s) => s.id));
  return {
    kind: 'scraper',
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    visits,
    visitors: count,
    flaggedVisits: added.filter((v) => flaggedIds.has(v.visitor_id)).length,
    flaggedVisitors: flagged.length,
    source: {
      name: sourceName,
      label: SOURCE_LABELS[sourceName] ?? sourceName,
      referrer: known.referrer,
      channel: known.trafficSource.channel,
    },
    page: { url, path },
    visitorIds: scrapers.map((s) => s.id),
    visitIds: added.map((v) => v.id),
  };
}

/** Takes every visit from one source out of the span; a RangeError where the span has none from it. */
function produceDrop(dataset: Dataset, request: Extract<SpikeRequest, { kind: 'drop' }>): ProducedSpike {
  const { from, to } = spanOf(request.hour, request.before);
  const inSpan = periodCounts(dataset, new Date(from), new Date(to));
  const name =
    request.source ?? Object.entries(inSpan.sources).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0];
  if (name === undefined) throw new RangeError('the hour has no visits: nothing to drop');
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const taken = dataset
    .entriesBetween(day(from), day(to - 1))
    .filter(({ visit, facts }) => facts.time >= from && facts.time < to && visit.trafficSource.source === name)
    .map(({ visit }) => visit);
  if (taken.length === 0) throw new RangeError(`the hour has no visit from ${name}: nothing to drop`);
  const flagged = taken.filter((v) => isFlagged(dataset.securityOf(v.visitor_id)));
  const first = taken[0]!;
  for (const v of taken) dataset.removeVisit(v.id);
  return {
    kind: 'drop',
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    visits: taken.length,
    visitors: new Set(taken.map((v) => v.visitor_id)).size,
    flaggedVisits: flagged.length,
    flaggedVisitors: new Set(flagged.map((v) => v.visitor_id)).size,
    source: {
      name,
      label: SOURCE_LABELS[name] ?? name,
      referrer: first.referrer,
      channel: first.trafficSource.channel,
    },
    visitorIds: [...new Set(taken.map((v) => v.visitor_id))],
    visitIds: taken.map((v) => v.id),
  };
}

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** What the data set holds for [from, to), counted from its records and security profiles. */
export function periodCounts(dataset: Dataset, from: Date, to: Date): PeriodCounts {
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const start = from.getTime();
  const end = to.getTime();
  const out: PeriodCounts = {
    from: from.toISOString(),
    to: to.toISOString(),
    visits: 0,
    visitors: 0,
    flaggedVisits: 0,
    flaggedVisitors: 0,
    sources: {},
    pages: {},
    countries: {},
    flaggedSources: {},
    flaggedPages: {},
  };
  if (!(end > start)) return out;
  const visitors = new Set<string>();
  const flaggedVisitors = new Set<string>();
  for (const { visit, facts } of dataset.entriesBetween(day(start), day(end - 1))) {
    if (facts.time < start || facts.time >= end) continue;
    out.visits++;
    visitors.add(visit.visitor_id);
    bump(out.sources, visit.trafficSource.source);
    bump(out.pages, facts.pageUrl);
    bump(out.countries, facts.countryLabel);
    if (isFlagged(dataset.securityOf(visit.visitor_id))) {
      out.flaggedVisits++;
      flaggedVisitors.add(visit.visitor_id);
      bump(out.flaggedSources, visit.trafficSource.source);
      bump(out.flaggedPages, facts.pageUrl);
    }
  }
  out.visitors = visitors.size;
  out.flaggedVisitors = flaggedVisitors.size;
  return out;
}
