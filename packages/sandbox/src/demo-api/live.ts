import type { Dataset } from './dataset.js';
import type { SecurityProfile, Visit } from './model.js';
import { hashString, Random } from './random.js';
import { visitorPrefix } from './site.js';

/** New visits arriving in real time, so the sandbox's `today` grows and threat alerts have something to find. */
export interface LiveOptions {
  /** The share of the site's visits made by a new flagged visitor (an attacker, a scraper or a VPN abuser), each worth an alert at medium or more. Default 0.08. */
  flaggedShare?: number;
  /** The chance that an hour brings a wave: 3 to 5 new flagged visitors within four minutes, on top of the site's visits. Default 1/8 (about three a day). */
  waveChance?: number;
  /** A new flagged visitor arrives in each of this many minutes after the start, so alerts turned on at once show one within two minutes. Default 5. */
  openingMinutes?: number;
  /** Default 42. */
  seed?: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const WAVE_SIZE = [3, 5] as const;
const WAVE_SPAN_MS = 4 * MINUTE;
/** An opening visitor arrives this long into its minute at most: two of them are never more than 80 s apart. */
const OPENING_JITTER_MS = 20_000;

const FLAGGED: readonly ((r: Random) => Partial<SecurityProfile>)[] = [
  (r) => ({ is_attacker: 'True', is_threat: 'True', is_proxy: 'True', score: r.float(0.3, 0.6), visitor_type: 'BOT' }),
  (r) => ({ is_abuser: 'True', score: r.float(0.85, 0.99), visitor_type: 'SCRAPER' }),
  (r) => ({ vpn: 'True', is_proxy: 'True', is_abuser: 'True', score: r.float(0.05, 0.2) }),
];

interface Arrival {
  at: number;
  /** A new flagged visitor: its id and which of FLAGGED it is. */
  flagged?: { id: string; kind: number };
  rng: Random;
}

/**
 * The visits the history holds on average in each hour of the week (UTC weekday × 24 +
 * UTC hour): the mean over its whole days before `before`'s day, leaving out the hours of
 * its past spike and outage (past-events.ts), so live traffic follows the ordinary weeks.
 * A weekday the history has no whole day of takes the mean of that hour over all its whole days.
 */
export function weeklyCurve(dataset: Dataset, before: Date): number[] {
  const today = Math.floor(before.getTime() / DAY) * DAY;
  const first = dataset.entries[0]?.facts.time;
  const counts = new Array<number>(168).fill(0);
  const days = new Array<number>(7).fill(0);
  if (first === undefined || first >= today) return counts;
  for (let day = Math.floor(first / DAY) * DAY; day < today; day += DAY) days[new Date(day).getUTCDay()]!++;
  const slotDays = counts.map((_, slot) => days[Math.floor(slot / 24)]!);
  const slotOf = (t: number) => {
    const at = new Date(t);
    return at.getUTCDay() * 24 + at.getUTCHours();
  };
  const past = dataset.pastEvents;
  const unusual = (past ? [past.spike, past.outage] : []).map((span): [number, number] => [
    Date.parse(span.start),
    Date.parse(span.end),
  ]);
  for (const [from, to] of unusual)
    for (let hour = from; hour < to && hour < today; hour += HOUR) slotDays[slotOf(hour)]!--;
  for (const { facts } of dataset.entries) {
    if (facts.time >= today) break;
    if (!unusual.some(([from, to]) => facts.time >= from && facts.time < to)) counts[slotOf(facts.time)]!++;
  }
  const allDays = days.reduce((a, b) => a + b, 0);
  const byHour = Array.from(
    { length: 24 },
    (_, h) => days.reduce((sum, _n, w) => sum + counts[w * 24 + h]!, 0) / allDays,
  );
  return counts.map((n, slot) => (slotDays[slot]! > 0 ? n / slotDays[slot]! : byHour[slot % 24]!));
}

/**
 * Adds the visits due up to a moment, at the rhythm of the data set's own history: each
 * hour brings the visits its weekday and hour had on average (rounded up or down at
 * random), at random moments; some of them are new flagged visitors; now and then a wave
 * of flagged visitors comes on top; and the first minutes after the start each bring one.
 * What arrives in an hour depends only on the seed, the start and the hour, never on when
 * `advance` is called, so a given clock always gives the same data. Each arrival copies a
 * generated visit (page, source, place, device) from a returning visitor; a flagged
 * arrival is a new visitor.
 */
export class LiveTraffic {
  private doneUpTo: number;
  private readonly curve: number[];
  private readonly flaggedShare: number;
  private readonly waveChance: number;
  private readonly seed: number;
  private readonly opening: Arrival[];
  /** The hours the opening touches: no wave comes in them, so no hour gets both. */
  private readonly openingHours: Set<number>;

  constructor(
    private readonly dataset: Dataset,
    startAt: Date,
    options: LiveOptions = {},
  ) {
    this.doneUpTo = startAt.getTime();
    this.curve = weeklyCurve(dataset, startAt);
    this.flaggedShare = Math.min(1, Math.max(0, options.flaggedShare ?? 0.08));
    this.waveChance = Math.min(1, Math.max(0, options.waveChance ?? 1 / 8));
    this.seed = options.seed ?? 42;
    const start = startAt.getTime();
    const minutes = Math.max(0, Math.round(options.openingMinutes ?? 5));
    const prefix = visitorPrefix(dataset.site);
    this.opening = Array.from({ length: minutes }, (_, k) => {
      const rng = new Random(hashString(`${this.seed}:opening:${start}:${k}`));
      return {
        at: start + k * MINUTE + rng.int(1_000, OPENING_JITTER_MS),
        flagged: { id: `${prefix}live_open_${Math.floor(start / 1000).toString(36)}_${k}`, kind: k % FLAGGED.length },
        rng,
      };
    });
    this.openingHours = new Set(
      minutes > 0 ? [Math.floor(start / HOUR), Math.floor((start + minutes * MINUTE) / HOUR)] : [],
    );
  }

  /** Adds every visit due after the last call and at or before `now`; those added, oldest first. */
  advance(now: Date): Visit[] {
    const until = now.getTime();
    const added: Visit[] = [];
    for (let hour = Math.floor(this.doneUpTo / HOUR); hour * HOUR <= until; hour++) {
      for (const arrival of this.arrivals(hour)) {
        if (arrival.at > this.doneUpTo && arrival.at <= until) added.push(this.add(arrival));
      }
    }
    this.doneUpTo = Math.max(this.doneUpTo, until);
    return added;
  }

  /** The arrivals of one hour, by time: a function of the seed, the start and the hour alone. */
  private arrivals(hour: number): Arrival[] {
    const start = hour * HOUR;
    const rng = new Random(hashString(`${this.seed}:${hour}`));
    const when = new Date(start);
    const expected = this.curve[when.getUTCDay() * 24 + when.getUTCHours()] ?? 0;
    const count = Math.floor(expected + rng.next());
    const out: Arrival[] = [];
    for (let i = 0; i < count; i++) {
      const at = start + rng.int(0, HOUR - 1);
      const flagged = rng.chance(this.flaggedShare)
        ? {
            id: `${visitorPrefix(this.dataset.site)}live_${hour.toString(36)}_${i}`,
            kind: rng.int(0, FLAGGED.length - 1),
          }
        : undefined;
      out.push({ at, ...(flagged ? { flagged } : {}), rng: new Random(hashString(`${this.seed}:${hour}:${i}`)) });
    }
    const wave = rng.chance(this.waveChance);
    const size = rng.int(...WAVE_SIZE);
    const from = start + rng.int(0, HOUR - WAVE_SPAN_MS);
    const kind = rng.int(0, FLAGGED.length - 1);
    if (wave && !this.openingHours.has(hour)) {
      for (let j = 0; j < size; j++) {
        out.push({
          at: from + rng.int(0, WAVE_SPAN_MS),
          flagged: { id: `${visitorPrefix(this.dataset.site)}live_wave_${hour.toString(36)}_${j}`, kind },
          rng: new Random(hashString(`${this.seed}:wave:${hour}:${j}`)),
        });
      }
    }
    out.push(...this.opening.filter((a) => Math.floor(a.at / HOUR) === hour));
    return out.sort((a, b) => a.at - b.at);
  }

  /** A generated visit by a clean returning visitor: flagged arrivals are the ones this class schedules. */
  private cleanVisit(rng: Random): Visit {
    const visits = this.dataset.visits;
    let visit = visits[rng.int(0, visits.length - 1)]!;
    for (let i = 0; i < 50 && !clean(this.dataset.securityOf(visit.visitor_id)); i++)
      visit = visits[rng.int(0, visits.length - 1)]!;
    return visit;
  }

  private add(arrival: Arrival): Visit {
    const { rng, flagged } = arrival;
    const template = this.cleanVisit(rng);
    const date = new Date(arrival.at);
    if (flagged) {
      const visitor = this.dataset.addVisitor({
        id: flagged.id,
        security: FLAGGED[flagged.kind]!(rng),
        first_seen: date,
        last_seen: date,
      });
      return this.dataset.addVisit({ ...copy(template), visitor_id: visitor.id, date });
    }
    return this.dataset.addVisit({ ...copy(template), visitor_id: template.visitor_id, date });
  }
}

export type Scenario =
  /** `visits` clean visits in each of the hours, spread evenly (a page, if given, for all of them). */
  | { kind: 'spike'; hours: readonly Date[]; visits: number; url?: string }
  /** Traffic that falls away: the hours get these many clean visits each, in turn (a busy hour, then quiet ones). */
  | { kind: 'drop'; hours: readonly Date[]; visits: readonly number[] }
  /** `scrapers` new scraping visitors (flagged by the security API) making `visits` visits in the hour, beside `clean` clean visits. */
  | { kind: 'scraper-wave'; hour: Date; scrapers: number; visits: number; clean: number };

/**
 * Asks the living demo for traffic that moves: a spike, a drop or a scraper wave, in
 * whole hours. What it adds is a function of the seed and the hours alone.
 */
export function produce(dataset: Dataset, scenario: Scenario, seed = 42): Visit[] {
  const rng = new Random(hashString(`${seed}:${scenario.kind}:${JSON.stringify(scenario)}`));
  const pick = (): Visit => {
    const visits = dataset.visits;
    let visit = visits[rng.int(0, visits.length - 1)]!;
    for (let i = 0; i < 50 && !clean(dataset.securityOf(visit.visitor_id)); i++)
      visit = visits[rng.int(0, visits.length - 1)]!;
    return visit;
  };
  const spread = (hour: Date, n: number, make: (date: Date) => Visit): Visit[] =>
    Array.from({ length: n }, (_, i) =>
      make(new Date(hour.getTime() + Math.floor(((i + 0.5) * 3_600_000) / Math.max(1, n)))),
    );
  const cleanAt = (url?: string) => (date: Date) => {
    const template = pick();
    return dataset.addVisit({ ...copy(template), ...(url ? { url } : {}), visitor_id: template.visitor_id, date });
  };
  switch (scenario.kind) {
    case 'spike':
      return scenario.hours.flatMap((hour) => spread(hour, scenario.visits, cleanAt(scenario.url)));
    case 'drop':
      return scenario.hours.flatMap((hour, i) => spread(hour, scenario.visits[i] ?? 0, cleanAt()));
    case 'scraper-wave': {
      const start = scenario.hour.getTime();
      const scrapers = Array.from({ length: scenario.scrapers }, (_, i) =>
        dataset.addVisitor({
          id: `${visitorPrefix(dataset.site)}wave_${(start / 60_000).toString(36)}_${i}`,
          security: FLAGGED[1]!(rng),
          first_seen: scenario.hour,
          last_seen: scenario.hour,
        }),
      );
      const wave = spread(scenario.hour, scenario.visits, (date) => {
        const template = pick();
        return dataset.addVisit({ ...copy(template), visitor_id: scrapers[rng.int(0, scrapers.length - 1)]!.id, date });
      });
      return [...wave, ...spread(scenario.hour, scenario.clean, cleanAt())];
    }
  }
}

const clean = (p: SecurityProfile | undefined): boolean =>
  !!p &&
  p.visitor_type === 'HUMAN' &&
  p.score < 0.5 &&
  [p.is_attacker, p.is_threat, p.is_abuser, p.is_proxy, p.vpn].every((f) => f === 'False');

function copy(visit: Visit): Omit<Visit, 'id' | 'visitor_id' | 'date'> {
  const { id: _id, visitor_id: _visitor, date: _date, ...rest } = structuredClone(visit);
  return rest;
}
