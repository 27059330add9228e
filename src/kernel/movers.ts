/**
 * What moved, shared by watch alerts and digests: the entries that account for most of a
 * change (movers). Who moved it (the flagged visitors' share) is kernel/flagged-share.ts.
 * Pure: the figures come in, plain words go out.
 */
import type { ReportId } from './catalog.js';
import { formatCount } from './format.js';
import { clip } from './text.js';

/** Entries named in "What moved" at most. */
export const MAX_MOVERS = 3;
/** An entry entering this many top rows, from outside the baseline's, is new in the top. */
export const MOVERS_TOP = 10;

/** What an entry of a report is, in a mover's words: "source x.com +150 (new)", "page /pricing +140". */
export const ENTRY_KIND: Partial<Record<ReportId, string>> = {
  sources: 'source',
  channels: 'channel',
  campaigns: 'campaign',
  pages: 'page',
  countries: 'country',
  states: 'state',
  cities: 'city',
  browsers: 'browser',
  devices: 'device',
  os: 'operating system',
  extensions: 'browser extension',
};

export interface Entry {
  label: string;
  visits: number;
}

export interface Mover {
  label: string;
  /** Current visits minus baseline visits: positive for a rise, negative for a fall. */
  change: number;
  current: number;
  baseline: number;
  /** What the entry is (ENTRY_KIND), named before it where movers of several reports meet. */
  kind?: string;
  /** Absent from the baseline, or 0 there. */
  isNew: boolean;
  /** In the current top MOVERS_TOP but not in the baseline's (absent entries included). */
  newInTop: boolean;
  /**
   * Set when this one entry moved more than the whole change: what every other entry did
   * together (the other way), so that the two add up to the change and nothing claims more.
   */
  rest?: number;
}

export interface MoversOptions {
  /** Entries named at most (default MAX_MOVERS). */
  max?: number;
  /** The top whose newcomers count as new (default MOVERS_TOP). */
  top?: number;
  /** The report the entries are of: each mover names its kind (ENTRY_KIND). */
  report?: ReportId;
}

/** Visits as a count: anything not a finite non-negative number counts as none. */
const count = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);

function byLabel(entries: readonly Entry[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of entries) out.set(e.label, (out.get(e.label) ?? 0) + count(e.visits));
  return out;
}

const compareLabels = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The labels of the `n` largest entries (ties by label). */
function topLabels(totals: Map<string, number>, n: number): Set<string> {
  return new Set(
    [...totals]
      .filter(([, v]) => v > 0)
      .sort(([la, a], [lb, b]) => b - a || compareLabels(la, lb))
      .slice(0, n)
      .map(([label]) => label),
  );
}

/** Total current visits minus total baseline visits. */
export function totalChange(current: readonly Entry[], baseline: readonly Entry[]): number {
  const sum = (entries: readonly Entry[]) => entries.reduce((n, e) => n + count(e.visits), 0);
  return sum(current) - sum(baseline);
}

/**
 * The entries that account for most of the change, largest first: for a rise those that
 * rose, for a fall those that fell. They never claim more than the change: the listed
 * changes sum to at most the total change (an entry that would pass it ends the list), so
 * where entries moving the other way cancel much of a rise, fewer are named. Of a rise, an
 * entry new in the top that fits takes the last place if no listed entry is new in the top.
 * Ties go by label. An empty period (a missing one) is an empty array.
 */
export function movers(current: readonly Entry[], baseline: readonly Entry[], options: MoversOptions = {}): Mover[] {
  const max = Math.max(0, Math.floor(options.max ?? MAX_MOVERS));
  const top = Math.max(0, Math.floor(options.top ?? MOVERS_TOP));
  const now = byLabel(current);
  const before = byLabel(baseline);
  const total = totalChange(current, baseline);
  const kind = options.report && ENTRY_KIND[options.report];
  if (total === 0 || max === 0) return [];
  const sign = Math.sign(total);
  const topNow = topLabels(now, top);
  const topBefore = topLabels(before, top);
  const all: Mover[] = [...new Set([...now.keys(), ...before.keys()])].map((label) => {
    const c = now.get(label) ?? 0;
    const b = before.get(label) ?? 0;
    return {
      label,
      change: c - b,
      current: c,
      baseline: b,
      ...(kind ? { kind } : {}),
      isNew: c > 0 && b === 0,
      newInTop: topNow.has(label) && !topBefore.has(label),
    };
  });
  // An entry whose change rounds to no whole visit (baselines are averages) is not named.
  const candidates = all
    .filter((m) => Math.sign(m.change) === sign && Math.abs(m.change) >= 0.5)
    .sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || compareLabels(a.label, b.label));
  const chosen: Mover[] = [];
  let left = Math.abs(total);
  for (const m of candidates) {
    if (chosen.length === max || Math.abs(m.change) > left) break;
    chosen.push(m);
    left -= Math.abs(m.change);
  }
  // One entry moved more than everything together: it is named with what the rest did.
  if (chosen.length === 0 && candidates.length > 0) return [{ ...candidates[0]!, rest: total - candidates[0]!.change }];
  if (sign > 0 && chosen.length > 0 && !chosen.some((m) => m.newInTop)) {
    const last = chosen[chosen.length - 1]!;
    const room = left + (chosen.length === max ? Math.abs(last.change) : 0);
    const newcomer = candidates.find((m) => m.newInTop && !chosen.includes(m) && m.change <= room);
    if (newcomer) {
      if (chosen.length === max) chosen.pop();
      chosen.push(newcomer);
    }
  }
  return chosen;
}

/**
 * Movers of several reports (sources, pages, countries) in one list of at most `max`: each
 * report's first, then each one's second, and so on, larger changes first within a round.
 * Each report's names stay a leading part of its own list, so none claims more than its
 * report's change.
 */
export function acrossReports(lists: readonly (readonly Mover[])[], max: number = MAX_MOVERS): Mover[] {
  const out: Mover[] = [];
  for (let round = 0; out.length < max; round++) {
    const picks = lists
      .map((list) => list[round])
      .filter((m): m is Mover => m !== undefined)
      .sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || compareLabels(a.label, b.label));
    if (picks.length === 0) break;
    out.push(...picks.slice(0, max - out.length));
  }
  return out;
}

/** A signed count, rounded first: "+212", "−40", "0" (never "−0"). */
export function signedCount(n: number): string {
  const whole = Math.round(Math.abs(n));
  return whole === 0 ? '0' : `${n > 0 ? '+' : '−'}${formatCount(whole)}`;
}

/** A mover in plain words (not escaped): "source x.com +212 (new)", "page /pricing +150 (everything else −19)". */
export function moverWords(m: Mover, maxLabel: number): string {
  const notes = [
    ...(m.isNew ? ['new'] : m.newInTop ? [`new in the top ${MOVERS_TOP}`] : []),
    // What the rest did is left out where it rounds to nothing.
    ...(m.rest !== undefined && signedCount(m.rest) !== '0' ? [`everything else ${signedCount(m.rest)}`] : []),
  ];
  const kind = m.kind ? `${m.kind} ` : '';
  return `${kind}${clip(m.label, maxLabel)} ${signedCount(m.change)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}
