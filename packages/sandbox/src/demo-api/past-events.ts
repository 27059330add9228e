/**
 * The two things of the past every generated data set holds besides its ordinary noise,
 * so a watch's preview over the last weeks has something real to find: a human spike
 * (a link to one page, on a source the site knows, brings 3–4× an hour's usual visits for
 * one or two daytime hours, 10–24 days ago) and an outage (3–6 daytime hours without a
 * visit, 9–20 days ago, on another weekday than the spike). Both lie before the last 8
 * days, so `last7d` answers in any time zone are those of a data set without them. Where
 * and when is a function of the seed alone, relative to today (UTC).
 */
import { PAGES, REDDIT_COMMUNITIES } from './catalog.js';
import { DAY_MS, makeVisit, type TimeFrame } from './generator.js';
import type { Visit } from './model.js';
import { HOUR_WEIGHTS, makePersona, PAGE_TABLE, sourceByName, type Persona } from './personas.js';
import { Random } from './random.js';

const HOUR_MS = 3_600_000;

/** Whole UTC hours [start, end), as ISO strings. */
export interface HourSpan {
  start: string;
  end: string;
}

export interface PastSpike extends HourSpan {
  /** The source of its visits, as the traffic reports name it (one the site has other visits from). */
  source: string;
  /** The visits it added. */
  visits: number;
  /** Their visitors, all new to the site. */
  visitors: number;
}

export interface PastEvents {
  spike: PastSpike;
  outage: HourSpan;
}

/** The sources a past spike comes from: a link shared where the site's visitors already come from. */
const SPIKE_SOURCES = ['reddit', 'hackernews', 'producthunt'] as const;
/** The pages a link points to: a product or a blog post. */
const LANDING_PAGES = PAGES.map(([path]) => path).filter((p) => p.startsWith('/products/') || p.startsWith('/blog/'));
/** A history shorter than this holds neither event. */
export const PAST_EVENTS_MIN_DAYS = 25;

/** Where and how big the events are, in ms; `size` is the spike's hours over their usual. */
export interface PastEventsPlan {
  spike: { from: number; to: number; dayAgo: number; size: number; source: string; community: string; page: string };
  outage: { from: number; to: number };
}

const span = (from: number, to: number): HourSpan => ({
  start: new Date(from).toISOString(),
  end: new Date(to).toISOString(),
});

/** Where and how big the events are: the seed's, relative to today; undefined for a short history. */
export function planPastEvents(seed: number, frame: TimeFrame): PastEventsPlan | undefined {
  if (frame.days < PAST_EVENTS_MIN_DAYS) return undefined;
  const rng = new Random(seed).fork('past-events');
  // The days go by the seed itself, so accounts whose seeds are less than 15 apart never share
  // a spike's day; the outage is not on the spike's weekday, so each is judged against ordinary weeks.
  const n = Math.abs(Math.trunc(seed));
  const spikeDay = 10 + (n % 15);
  let outageDay = 9 + (n % 12);
  if ((spikeDay - outageDay) % 7 === 0) outageDay = outageDay === 20 ? 9 : outageDay + 1;
  const spikeHours = rng.int(1, 2);
  const spikeFrom = frame.todayStart - spikeDay * DAY_MS + rng.int(10, 18 - spikeHours) * HOUR_MS;
  const outageHours = rng.int(3, 6);
  const outageFrom = frame.todayStart - outageDay * DAY_MS + rng.int(8, 20 - outageHours) * HOUR_MS;
  return {
    spike: {
      from: spikeFrom,
      to: spikeFrom + spikeHours * HOUR_MS,
      dayAgo: spikeDay,
      size: rng.float(3, 4),
      source: rng.pick(SPIKE_SOURCES),
      community: rng.pick(REDDIT_COMMUNITIES),
      page: rng.pick(LANDING_PAGES),
    },
    outage: { from: outageFrom, to: outageFrom + outageHours * HOUR_MS },
  };
}

/**
 * Generated visit times that fall in the outage, drawn again within their visitor's active
 * days (`redraw`), outside the outage and the last 8 days; one that keeps landing there moves
 * to just before the outage. Edits `times` in place; the indexes it moved.
 */
export function keepOutOfOutage(
  times: Float64Array,
  plan: PastEventsPlan,
  frame: TimeFrame,
  redraw: (i: number) => number,
): Set<number> {
  const { from, to } = plan.outage;
  const moved = new Set<number>();
  const recent = frame.todayStart - 7 * DAY_MS;
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number;
    if (t < from || t >= to) continue;
    let time = t - (to - from);
    for (let attempt = 0; attempt < 20; attempt++) {
      const candidate = redraw(i);
      if ((candidate < from || candidate >= to) && candidate < recent) {
        time = candidate;
        break;
      }
    }
    times[i] = time;
    moved.add(i);
  }
  return moved;
}

/** A visit made by hand (a fixed visitor's, a special one) that falls in the outage, moved to just before it. */
export function beforeOutage(visit: Visit, plan: PastEventsPlan): Visit {
  const t = Date.parse(visit.date);
  const { from, to } = plan.outage;
  return t >= from && t < to ? { ...visit, date: new Date(t - (to - from)).toISOString() } : visit;
}

/**
 * The spike's visits and its new visitors: the usual visits of its hours (the generated
 * visits per day, spread by HOUR_WEIGHTS) times its size, less the usual that come anyway;
 * most land on the linked page, some browse on.
 */
export function spikeVisits(
  rng: Random,
  plan: PastEventsPlan,
  frame: TimeFrame,
  visitsPerDay: number,
  newVisitorId: () => string,
  newVisitId: () => string,
): { personas: Persona[]; visits: Visit[] } {
  const { from, to, size, source: name, community, page } = plan.spike;
  const weights = HOUR_WEIGHTS.reduce((a, b) => a + b, 0);
  let usual = 0;
  for (let t = from; t < to; t += HOUR_MS) usual += (visitsPerDay * HOUR_WEIGHTS[new Date(t).getUTCHours()]!) / weights;
  const count = Math.max(12, Math.round(usual * (size - 1)));
  const source = sourceByName(name)!;
  const channel = source.channels[0]![0];
  const referrer = name === 'reddit' ? `https://www.reddit.com/r/${community}/` : source.referrer;
  const personas: Persona[] = [];
  for (let i = 0; i < Math.max(1, Math.round(count * 0.85)); i++) {
    let persona = makePersona(rng, newVisitorId(), frame.days);
    while (persona.kind !== 'human') persona = makePersona(rng, persona.id, frame.days);
    personas.push({ ...persona, arrivalAgo: plan.spike.dayAgo, spanDays: 1 });
  }
  const visits = Array.from({ length: count }, (_, i) => {
    const time = from + rng.int(0, (to - from) / 1000 - 1) * 1000;
    const path = rng.chance(0.75) ? page : PAGE_TABLE.sample(rng);
    const visit = makeVisit(rng, personas[i % personas.length]!, time, newVisitId(), {
      source: name,
      channel,
      campaign: null,
      path,
    });
    return { ...visit, referrer };
  });
  return { personas, visits };
}

/** What a data set tells of its past events, once its visits are made. */
export function pastEventsOf(plan: PastEventsPlan, spike: { visits: number; visitors: number }): PastEvents {
  return {
    spike: { ...span(plan.spike.from, plan.spike.to), source: plan.spike.source, ...spike },
    outage: span(plan.outage.from, plan.outage.to),
  };
}
