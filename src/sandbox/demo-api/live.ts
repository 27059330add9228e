import type { Dataset } from './dataset.js';
import type { SecurityProfile, Visit } from './model.js';
import { hashString, Random } from './random.js';

/** New visits arriving in real time, so the sandbox's `today` grows and threat alerts have something to find. */
export interface LiveOptions {
  /** On average; each minute draws 0 to twice this. Default 4. */
  visitsPerMinute?: number;
  /** A flagged visitor (attacker, scraper or VPN abuser in turn, each worth an alert at medium or more) arrives in every minute divisible by this. Default 1. */
  flaggedEveryMinutes?: number;
  /** Default 42. */
  seed?: number;
}

const MINUTE = 60_000;

const FLAGGED: readonly ((r: Random) => Partial<SecurityProfile>)[] = [
  (r) => ({ is_attacker: 'True', is_threat: 'True', is_proxy: 'True', score: r.float(0.3, 0.6), visitor_type: 'BOT' }),
  (r) => ({ is_abuser: 'True', score: r.float(0.85, 0.99), visitor_type: 'SCRAPER' }),
  (r) => ({ vpn: 'True', is_proxy: 'True', is_abuser: 'True', score: r.float(0.05, 0.2) }),
];

/**
 * Adds the visits due up to a moment. Which visits arrive in a minute depends only on the
 * seed and the minute, never on when `advance` is called, so a given clock always gives
 * the same data. Each arrival copies a generated visit (page, source, place, device) from
 * a returning visitor; a flagged arrival is a new visitor.
 */
export class LiveTraffic {
  private doneUpTo: number;
  private readonly perMinute: number;
  private readonly flaggedEvery: number;
  private readonly seed: number;

  constructor(
    private readonly dataset: Dataset,
    startAt: Date,
    options: LiveOptions = {},
  ) {
    this.doneUpTo = startAt.getTime();
    this.perMinute = Math.max(0, options.visitsPerMinute ?? 4);
    this.flaggedEvery = Math.max(1, Math.round(options.flaggedEveryMinutes ?? 1));
    this.seed = options.seed ?? 42;
  }

  /** Adds every visit due after the last call and at or before `now`; those added, oldest first. */
  advance(now: Date): Visit[] {
    const until = now.getTime();
    const added: Visit[] = [];
    for (let minute = Math.floor(this.doneUpTo / MINUTE); minute * MINUTE <= until; minute++) {
      for (const arrival of this.arrivals(minute)) {
        if (arrival.at > this.doneUpTo && arrival.at <= until) added.push(this.add(arrival, minute));
      }
    }
    this.doneUpTo = Math.max(this.doneUpTo, until);
    return added;
  }

  /** The arrivals of one minute, by time: a function of the seed and the minute alone. */
  private arrivals(minute: number): { at: number; flagged: boolean; rng: Random }[] {
    const rng = new Random(hashString(`${this.seed}:${minute}`));
    const count = rng.int(0, Math.round(this.perMinute * 2));
    const flagged = minute % this.flaggedEvery === 0;
    const times = Array.from({ length: count + (flagged ? 1 : 0) }, () => minute * MINUTE + rng.int(0, MINUTE - 1)).sort((a, b) => a - b);
    return times.map((at, i) => ({ at, flagged: flagged && i === times.length - 1, rng: new Random(hashString(`${this.seed}:${minute}:${i}`)) }));
  }

  /** A generated visit by a clean returning visitor: flagged arrivals are the ones this class schedules. */
  private cleanVisit(rng: Random): Visit {
    const visits = this.dataset.visits;
    let visit = visits[rng.int(0, visits.length - 1)]!;
    for (let i = 0; i < 50 && !clean(this.dataset.securityOf(visit.visitor_id)); i++) visit = visits[rng.int(0, visits.length - 1)]!;
    return visit;
  }

  private add(arrival: { at: number; flagged: boolean; rng: Random }, minute: number): Visit {
    const { rng } = arrival;
    const template = this.cleanVisit(rng);
    const date = new Date(arrival.at);
    if (arrival.flagged) {
      const kind = FLAGGED[Math.floor(minute / this.flaggedEvery) % FLAGGED.length]!;
      const visitor = this.dataset.addVisitor({ id: `v_live_${minute.toString(36)}`, security: kind(rng), first_seen: date, last_seen: date });
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
    for (let i = 0; i < 50 && !clean(dataset.securityOf(visit.visitor_id)); i++) visit = visits[rng.int(0, visits.length - 1)]!;
    return visit;
  };
  const spread = (hour: Date, n: number, make: (date: Date) => Visit): Visit[] =>
    Array.from({ length: n }, (_, i) => make(new Date(hour.getTime() + Math.floor(((i + 0.5) * 3_600_000) / Math.max(1, n)))));
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
        dataset.addVisitor({ id: `v_wave_${(start / 60_000).toString(36)}_${i}`, security: FLAGGED[1]!(rng), first_seen: scenario.hour, last_seen: scenario.hour }),
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
  !!p && p.visitor_type === 'HUMAN' && p.score < 0.5 && [p.is_attacker, p.is_threat, p.is_abuser, p.is_proxy, p.vpn].every((f) => f === 'False');

function copy(visit: Visit): Omit<Visit, 'id' | 'visitor_id' | 'date'> {
  const { id: _id, visitor_id: _visitor, date: _date, ...rest } = structuredClone(visit);
  return rest;
}
