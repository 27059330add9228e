/**
 * The in-memory data set: visitors, visits (sorted by date), a security
 * profile per visitor, and the indexes the server needs. Deterministic for a
 * given seed and `now`. Records are treated as immutable: adding a visit
 * replaces its visitor's record (new last_seen) instead of editing it.
 */

import { channelId, sourceId } from './catalog.js';
import { humanProfile } from './personas.js';
import {
  computeFacts,
  type Company,
  type SecurityProfile,
  type Visit,
  type VisitEntry,
  type Visitor,
} from './model.js';
import type { PastEvents } from './past-events.js';
import { Random } from './random.js';
import { SHOP_SITE, siteUrl, visitorPrefix, visitPrefix, type DemoSite } from './site.js';

export { DEMO_VISITORS } from './fixtures.js';
export type { DemoVisitorRole } from './fixtures.js';

export interface AddVisitorInput {
  /** Default: a new "v_" + 12 hex id (`v_<tag>_` + 12 hex at another site than the shop). Any non-empty string is accepted. */
  id?: string;
  first_seen?: string | Date;
  last_seen?: string | Date;
  company?: Company;
  /** Merged over a clean human profile. */
  security?: Partial<SecurityProfile>;
}

/** Any visit field may be given; missing ones are copied from the visitor's latest visit (or a default desktop visit). */
export type AddVisitInput = Partial<Omit<Visit, 'date' | 'visitor_id'>> & { visitor_id: string; date?: string | Date };

export interface DatasetInit {
  seed: number;
  now: Date;
  visitors: Visitor[];
  visits: Visit[];
  security: Map<string, SecurityProfile>;
  clock?: () => Date;
  site?: DemoSite;
  pastEvents?: PastEvents;
}

const byTimeThenId = (a: VisitEntry, b: VisitEntry): number =>
  a.facts.time - b.facts.time || (a.visit.id < b.visit.id ? -1 : a.visit.id > b.visit.id ? 1 : 0);

/** Visits by date, then id. Dates are normalised ISO strings, so string order is time order. */
function compareVisits(a: Visit, b: Visit): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function isoOf(value: string | Date, what: string): string {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(time)) throw new RangeError(`${what} is not a valid date: ${String(value)}`);
  return new Date(time).toISOString();
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

const DEFAULT_VISIT: Omit<Visit, 'id' | 'visitor_id' | 'date'> = {
  url: 'https://www.example-shop.com/',
  referrer: '',
  ip: '198.51.100.23',
  timezone: 'America/Los_Angeles',
  duration: 42,
  browser: { name: 'Chrome', version: '131.0.6778.86', extensions: [] },
  device: { type: 'desktop', name: 'Desktop', os: { name: 'Windows', version: '11' } },
  location: { country: 'United States', country_code: 'US', state: 'California', city: 'San Francisco' },
  screen: { width: 1920, height: 1080 },
  trafficSource: {
    source: 'direct',
    channel: 'Direct',
    campaign: null,
    source_id: sourceId('direct'),
    channel_id: channelId('Direct'),
    campaign_id: null,
  },
  params: {},
};

export class Dataset {
  readonly seed: number;
  /** The anchor the data was generated around. */
  readonly now: Date;
  readonly site: DemoSite;
  /** Where the generated past spike and outage are (past-events.ts); undefined for a short or hand-made history. */
  readonly pastEvents: PastEvents | undefined;
  clock: () => Date;

  private readonly visitorList: Visitor[] = [];
  private readonly visitorPosition = new Map<string, number>();
  private readonly visitorMap = new Map<string, Visitor>();
  private readonly entryList: VisitEntry[] = [];
  private readonly visitList: Visit[] = [];
  private readonly visitIndex = new Map<string, Visit>();
  private readonly visitsOfVisitor = new Map<string, Visit[]>();
  private readonly profiles = new Map<string, SecurityProfile>();
  /** Visitors added without visits or explicit dates: their first visit sets first_seen/last_seen. */
  private readonly provisional = new Set<string>();
  private readonly idRng: Random;
  private changes = 0;

  constructor(init: DatasetInit) {
    this.seed = init.seed;
    this.now = init.now;
    this.site = init.site ?? SHOP_SITE;
    this.pastEvents = init.pastEvents;
    this.clock = init.clock ?? (() => new Date());
    this.idRng = new Random(`added:${init.seed}`);
    for (const visitor of init.visitors) {
      if (this.visitorPosition.has(visitor.id)) throw new Error(`duplicate visitor id ${visitor.id}`);
      this.visitorPosition.set(visitor.id, this.visitorList.length);
      this.visitorList.push(visitor);
      this.visitorMap.set(visitor.id, visitor);
      this.visitsOfVisitor.set(visitor.id, []);
      this.profiles.set(visitor.id, init.security.get(visitor.id) ?? humanProfile());
    }
    const entries: VisitEntry[] = [];
    for (const visit of init.visits) {
      if (this.visitIndex.has(visit.id)) throw new Error(`duplicate visit id ${visit.id}`);
      const own = this.visitsOfVisitor.get(visit.visitor_id);
      if (!own) throw new Error(`visit ${visit.id} belongs to unknown visitor ${visit.visitor_id}`);
      this.visitIndex.set(visit.id, visit);
      entries.push({ visit, facts: computeFacts(visit) });
    }
    entries.sort(byTimeThenId);
    for (const entry of entries) {
      this.entryList.push(entry);
      this.visitList.push(entry.visit);
      (this.visitsOfVisitor.get(entry.visit.visitor_id) as Visit[]).push(entry.visit);
    }
  }

  /** Visitors in insertion order. */
  get visitors(): readonly Visitor[] {
    return this.visitorList;
  }

  /** Visits sorted by date, then id (ascending). */
  get visits(): readonly Visit[] {
    return this.visitList;
  }

  /** Visits with their precomputed facts, in the order of `visits`. */
  get entries(): readonly VisitEntry[] {
    return this.entryList;
  }

  get visitorById(): ReadonlyMap<string, Visitor> {
    return this.visitorMap;
  }

  get visitById(): ReadonlyMap<string, Visit> {
    return this.visitIndex;
  }

  /** Each visitor's visits sorted by date (ascending). */
  get visitsByVisitor(): ReadonlyMap<string, readonly Visit[]> {
    return this.visitsOfVisitor;
  }

  get security(): ReadonlyMap<string, SecurityProfile> {
    return this.profiles;
  }

  /** Increases on every change; caches compare it. */
  get version(): number {
    return this.changes;
  }

  getVisitor(id: string): Visitor | undefined {
    return this.visitorMap.get(id);
  }

  getVisit(id: string): Visit | undefined {
    return this.visitIndex.get(id);
  }

  visitsOf(visitorId: string): readonly Visit[] {
    return this.visitsOfVisitor.get(visitorId) ?? [];
  }

  securityOf(visitorId: string): SecurityProfile | undefined {
    return this.profiles.get(visitorId);
  }

  /** The entries whose UTC day lies in [startDay, endDay] (YYYY-MM-DD, inclusive). */
  entriesBetween(startDay: string, endDay: string): readonly VisitEntry[] {
    const lo = this.firstDayIndex(startDay, false);
    const hi = this.firstDayIndex(endDay, true);
    return lo >= hi ? [] : this.entryList.slice(lo, hi);
  }

  /** Index of the first entry with day >= day (or > day when `after`). */
  private firstDayIndex(day: string, after: boolean): number {
    let lo = 0;
    let hi = this.entryList.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const d = (this.entryList[mid] as VisitEntry).facts.day;
      if (d < day || (after && d === day)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  addVisitor(input: AddVisitorInput = {}): Visitor {
    const id =
      input.id ?? this.newId(visitorPrefix(this.site), true, (candidate) => this.visitorPosition.has(candidate));
    if (typeof id !== 'string' || id.length === 0) throw new TypeError('visitor id must be a non-empty string');
    if (this.visitorPosition.has(id)) throw new Error(`visitor ${id} already exists`);
    const nowIso = this.clock().toISOString();
    if (input.first_seen === undefined && input.last_seen === undefined) this.provisional.add(id);
    const firstSeen = isoOf(input.first_seen ?? nowIso, 'first_seen');
    const visitor: Visitor = { id, first_seen: firstSeen, last_seen: isoOf(input.last_seen ?? firstSeen, 'last_seen') };
    if (input.company) visitor.company = { ...input.company };
    const profile: SecurityProfile = { ...humanProfile(), ...input.security };
    profile.scraper_extension_list = (profile.scraper_extension_list ?? []).map((e) => ({ ...e }));
    this.visitorPosition.set(id, this.visitorList.length);
    this.visitorList.push(visitor);
    this.visitorMap.set(id, visitor);
    this.visitsOfVisitor.set(id, []);
    this.profiles.set(id, profile);
    this.changes++;
    return visitor;
  }

  addVisit(input: AddVisitInput): Visit {
    const visitor = this.getVisitor(input.visitor_id);
    if (!visitor) throw new Error(`unknown visitor ${input.visitor_id}: call addVisitor first`);
    const own = this.visitsOfVisitor.get(visitor.id) as Visit[];
    const id = input.id ?? this.newId(visitPrefix(this.site), false, (candidate) => this.visitIndex.has(candidate));
    if (this.visitIndex.has(id)) throw new Error(`visit ${id} already exists`);
    const template = own.at(-1) ?? {
      ...DEFAULT_VISIT,
      url: siteUrl(this.site, DEFAULT_VISIT.url),
      id: '',
      visitor_id: '',
      date: '',
    };
    const pick = <K extends keyof Visit>(key: K): Visit[K] =>
      clone(input[key] !== undefined ? (input[key] as Visit[K]) : template[key]);
    const visit: Visit = {
      id,
      visitor_id: visitor.id,
      date: isoOf(input.date ?? this.clock(), 'date'),
      url: pick('url'),
      referrer: pick('referrer'),
      ip: pick('ip'),
      timezone: pick('timezone'),
      duration: pick('duration'),
      browser: pick('browser'),
      device: pick('device'),
      location: pick('location'),
      screen: pick('screen'),
      trafficSource: pick('trafficSource'),
      params: pick('params'),
    };
    const entry: VisitEntry = { visit, facts: computeFacts(visit) };

    const at = this.insertionPoint(this.entryList, entry);
    this.entryList.splice(at, 0, entry);
    this.visitList.splice(at, 0, visit);
    this.visitIndex.set(id, visit);
    let ownAt = own.length;
    while (ownAt > 0 && compareVisits(own[ownAt - 1] as Visit, visit) > 0) ownAt--;
    own.splice(ownAt, 0, visit);

    // first_seen/last_seen widen to cover the new visit (a provisional visitor takes the visit's date);
    // the record is replaced, not edited.
    const provisional = this.provisional.delete(visitor.id);
    const firstSeen = provisional || visit.date < visitor.first_seen ? visit.date : visitor.first_seen;
    const lastSeen = provisional || visit.date > visitor.last_seen ? visit.date : visitor.last_seen;
    if (firstSeen !== visitor.first_seen || lastSeen !== visitor.last_seen) {
      const updated: Visitor = { id: visitor.id, first_seen: firstSeen, last_seen: lastSeen };
      if (visitor.company) updated.company = visitor.company;
      this.visitorList[this.visitorPosition.get(visitor.id) as number] = updated;
      this.visitorMap.set(visitor.id, updated);
    }
    this.changes++;
    return visit;
  }

  /**
   * Removes a visit, as if it never happened: its visitor's first and last seen close in on
   * the visits left, and a visitor with none left is removed too. False for an unknown id.
   */
  removeVisit(id: string): boolean {
    const visit = this.visitIndex.get(id);
    if (!visit) return false;
    const at = this.entryList.findIndex((e) => e.visit === visit);
    this.entryList.splice(at, 1);
    this.visitList.splice(at, 1);
    this.visitIndex.delete(id);
    const own = this.visitsOfVisitor.get(visit.visitor_id) as Visit[];
    own.splice(own.indexOf(visit), 1);
    const visitor = this.visitorMap.get(visit.visitor_id) as Visitor;
    if (own.length === 0) this.removeVisitor(visitor.id);
    else {
      const updated: Visitor = { ...visitor, first_seen: own[0]!.date, last_seen: own.at(-1)!.date };
      this.visitorList[this.visitorPosition.get(visitor.id) as number] = updated;
      this.visitorMap.set(visitor.id, updated);
    }
    this.changes++;
    return true;
  }

  private removeVisitor(id: string): void {
    const position = this.visitorPosition.get(id) as number;
    this.visitorList.splice(position, 1);
    for (let i = position; i < this.visitorList.length; i++) this.visitorPosition.set(this.visitorList[i]!.id, i);
    this.visitorPosition.delete(id);
    this.visitorMap.delete(id);
    this.visitsOfVisitor.delete(id);
    this.profiles.delete(id);
    this.provisional.delete(id);
  }

  private insertionPoint(list: readonly VisitEntry[], entry: VisitEntry): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byTimeThenId(list[mid] as VisitEntry, entry) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private newId(prefix: string, visitor: boolean, taken: (id: string) => boolean): string {
    for (;;) {
      const id = prefix + (visitor ? this.idRng.hex(12) : this.idRng.base36(16));
      if (!taken(id)) return id;
    }
  }
}
