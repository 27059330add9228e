/** The demo data set made from a seed: generated visitors and visits, the fixtures and the specials, on one site. */
import { DEMO_VISITORS, fixtureVisits, specialVisits } from './fixtures.js';
import { arrivedByNow, makeVisit, timeFrame, visitTime, visitWeight } from './generator.js';
import {
  beforeOutage,
  keepOutOfOutage,
  pastEventsOf,
  planPastEvents,
  spikeVisits,
  type PastEvents,
} from './past-events.js';
import { makePersona, type Persona } from './personas.js';
import type { SecurityProfile, Visit, Visitor } from './model.js';
import { Random, WeightedTable } from './random.js';
import { checkSite, moveVisit, SHOP_SITE, siteId, type DemoSite } from './site.js';
import { Dataset } from './dataset.js';

export interface GenerateOptions {
  /** Default 42. */
  seed?: number;
  /** The anchor of all dates; default the current time. Visits fall on the `days` UTC days up to and including now. */
  now?: Date;
  /** Generated visitors (the five DEMO_VISITORS come on top). Default 3000. */
  visitors?: number;
  /** Generated visits, at least one per visitor (fixture and special visits come on top). Default 40000. */
  visits?: number;
  /** Days of history. Default 120. */
  days?: number;
  /** Clock for defaults of addVisit/addVisitor; default the real time. */
  clock?: () => Date;
  /** The site measured: its origin, pages, referrers and ids. Default the shop. */
  site?: DemoSite;
}

/** Indexes of `times` (whole seconds, in ms) in ascending time order, ties by index. */
function timeOrder(times: Float64Array): Uint32Array {
  const SLOTS = 2 ** 20;
  if (times.length >= SLOTS || times.some((t) => t < 0))
    return Uint32Array.from(times.keys()).sort((a, b) => (times[a] as number) - (times[b] as number) || a - b);
  // One native numeric sort of seconds·2^20 + index (below 2^53) instead of a comparator sort.
  const keys = new Float64Array(times.length);
  for (let i = 0; i < times.length; i++) keys[i] = Math.floor((times[i] as number) / 1000) * SLOTS + i;
  keys.sort();
  return Uint32Array.from(keys, (key) => key % SLOTS);
}

function positiveInteger(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}

/**
 * Generates the demo data set. Same seed and same `now` → the same data.
 * Every generated visitor has at least one visit; first_seen/last_seen are
 * the dates of their first and latest visit.
 */
export function generateDataset(options: GenerateOptions = {}): Dataset {
  const seed = options.seed ?? 42;
  const now = options.now ?? new Date();
  const visitorCount = positiveInteger(options.visitors ?? 3000, 'visitors', 1);
  const visitCount = Math.max(visitorCount, positiveInteger(options.visits ?? 40_000, 'visits', 1));
  const days = positiveInteger(options.days ?? 120, 'days', 1);
  const site = checkSite(options.site ?? SHOP_SITE);
  if (!Number.isFinite(now.getTime())) throw new RangeError('now is not a valid date');

  const root = new Random(seed);
  const frame = timeFrame(now, days);
  const personaRng = root.fork('personas');
  const visitRng = root.fork('visits');
  const assignRng = root.fork('assign');
  const arrivalRng = root.fork('arrivals');
  const past = planPastEvents(seed, frame);

  const visitorIds = new Set<string>(Object.values(DEMO_VISITORS));
  const newVisitorId = (rng: Random) => (): string => {
    let id: string;
    do id = `v_${rng.hex(12)}`;
    while (visitorIds.has(id));
    visitorIds.add(id);
    return id;
  };
  const nextVisitorId = newVisitorId(personaRng);
  const personas: Persona[] = [];
  for (let i = 0; i < visitorCount; i++) {
    personas.push(arrivedByNow(arrivalRng, makePersona(personaRng, nextVisitorId(), days), frame));
  }

  // Every persona visits once; the rest of the visits go by activity weight.
  const slots: number[] = personas.map((_, i) => i);
  const byWeight = new WeightedTable(personas.map((p, i) => [i, visitWeight(p, frame)] as const));
  for (let i = visitorCount; i < visitCount; i++) slots.push(byWeight.sample(assignRng));

  const visitIds = new Set<string>();
  const newVisitId = (rng: Random) => (): string => {
    let id: string;
    do id = `vs_${rng.base36(16)}`;
    while (visitIds.has(id));
    visitIds.add(id);
    return id;
  };
  // Ids come from their own stream, so they stay the same when only `now` changes.
  const nextVisitId = newVisitId(root.fork('visit-ids'));
  // Times first, then the visits in time order: the data set then needs no big sort.
  const timeRng = root.fork('times');
  const times = new Float64Array(slots.length);
  slots.forEach((slot, i) => {
    times[i] = visitTime(timeRng, personas[slot] as Persona, frame);
  });
  const order = timeOrder(times);
  // Redrawn once the order is fixed, so every other visit keeps its draws of visitRng and its id;
  // the few redrawn go last, with the others out of order, for the data set's sort.
  const outageRng = root.fork('outage');
  const redrawn = past
    ? keepOutOfOutage(times, past, frame, (i) => visitTime(outageRng, personas[slots[i] as number] as Persona, frame))
    : new Set<number>();
  const visits: Visit[] = [];
  const late: Visit[] = [];
  for (const i of order) {
    const visit = makeVisit(visitRng, personas[slots[i] as number] as Persona, times[i] as number, nextVisitId());
    (redrawn.has(i) ? late : visits).push(visit);
  }
  visits.push(...late);

  const specialRng = root.fork('specials');
  const byHand = specialVisits(
    specialRng,
    personas.filter((p) => p.kind === 'human'),
    frame,
    newVisitId(specialRng),
  );
  const fixtures = fixtureVisits(frame);
  personas.push(...fixtures.personas);
  byHand.push(...fixtures.visits);
  visits.push(...(past ? byHand.map((visit) => beforeOutage(visit, past)) : byHand));

  let pastEvents: PastEvents | undefined;
  if (past) {
    const spikeRng = root.fork('past-spike');
    const made = spikeVisits(spikeRng, past, frame, slots.length / days, newVisitorId(spikeRng), newVisitId(spikeRng));
    personas.push(...made.personas);
    visits.push(...made.visits);
    pastEvents = pastEventsOf(past, { visits: made.visits.length, visitors: made.personas.length });
  }

  const span = new Map<string, { first: string; last: string }>();
  for (const visit of visits) {
    const seen = span.get(visit.visitor_id);
    if (!seen) span.set(visit.visitor_id, { first: visit.date, last: visit.date });
    else {
      if (visit.date < seen.first) seen.first = visit.date;
      if (visit.date > seen.last) seen.last = visit.date;
    }
  }

  const visitors: Visitor[] = [];
  const security = new Map<string, SecurityProfile>();
  for (const persona of personas) {
    const seen = span.get(persona.id);
    if (!seen) continue; // a fixture visitor whose visits all fall outside a very short window
    const id = siteId(site, persona.id);
    const visitor: Visitor = { id, first_seen: seen.first, last_seen: seen.last };
    if (persona.company) visitor.company = { ...persona.company };
    visitors.push(visitor);
    security.set(id, persona.profile);
  }

  return new Dataset({
    seed,
    now,
    site,
    visitors,
    visits: site.tag === '' ? visits : visits.map((visit) => moveVisit(site, visit)),
    security,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(pastEvents ? { pastEvents } : {}),
  });
}
