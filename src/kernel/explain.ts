/**
 * The arithmetic of explaining a change, shared by watch alerts and digests: the entries
 * that account for most of it (movers), and the share of visits from flagged visitors
 * against a baseline, with a verdict in words. Pure: the figures come in, plain words go out.
 */
import { counted, formatCount } from './format.js';
import { clip } from './text.js';

/** Entries named in "What moved" at most. */
export const MAX_MOVERS = 3;
/** An entry entering this many top rows, from outside the baseline's, is new in the top. */
export const MOVERS_TOP = 10;
/** At or above this share of the change from flagged visitors: "mostly automated". */
export const MOSTLY_AUTOMATED_AT = 0.5;
/** Below this share of the change from flagged visitors: "mostly people"; between the two: "mixed". */
export const MOSTLY_PEOPLE_BELOW = 0.2;
/** Fewer judged visitors than this (when some were not judged) make the verdict unknown. */
export const MIN_JUDGED_VISITORS = 20;

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
      isNew: c > 0 && b === 0,
      newInTop: topNow.has(label) && !topBefore.has(label),
    };
  });
  const candidates = all
    .filter((m) => Math.sign(m.change) === sign)
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

/** One period's visits, and what the threat scan (and a sample of the rest) made of their visitors. */
export interface PeriodJudgement {
  /** Every visit of the period: the stated total. */
  visits: number;
  /** Visits by visitors that have been judged, flagged or not. */
  judgedVisits: number;
  /** Visits by visitors judged flagged (threat, scraper, VPN abuser). */
  flaggedVisits: number;
}

export interface FlaggedInput {
  current: PeriodJudgement;
  baseline: PeriodJudgement;
  /** The threat scan is on: without it no visitor is judged. */
  scanOn: boolean;
  /** Distinct visitors of the current period, and how many of them were judged. */
  visitors: number;
  judgedVisitors: number;
  /** Some judgements come from a sample of the unjudged visitors, looked up for this explanation. */
  sampled: boolean;
}

export interface FlaggedShares {
  /** Of the current period's visits (estimated from the judged ones), the share from flagged visitors, 0–1. */
  share?: number;
  /** The same share in the baseline. */
  baselineShare?: number;
  /** Which way the visits moved against the baseline. */
  direction: 'rise' | 'fall' | 'none';
  /** Of the rise (or fall), the share from flagged visitors, 0–1. */
  changeShare?: number;
}

export type ExplanationVerdict =
  | 'mostly automated'
  | 'mostly people'
  | 'mixed'
  | 'unknown: threat checks are off'
  | 'unknown: too few visitors judged'
  | 'unknown: usual share unknown';

const unit = (n: number): number => Math.min(1, Math.max(0, n));

/** Flagged visits among judged visits, or undefined when none of its visits was judged. */
function shareOf(p: PeriodJudgement): number | undefined {
  const judged = Math.min(count(p.judgedVisits), count(p.visits));
  if (judged === 0) return count(p.visits) === 0 ? 0 : undefined;
  return unit(Math.min(count(p.flaggedVisits), judged) / judged);
}

/**
 * The shares of visits from flagged visitors: in the period, in the baseline, and of the
 * change between them. A share is of the period's stated visits, estimated from the
 * judged ones where not all were judged; each lies within 0–1.
 */
export function flaggedShare(input: FlaggedInput): FlaggedShares {
  const share = shareOf(input.current);
  const baselineShare = shareOf(input.baseline);
  const now = count(input.current.visits);
  const before = count(input.baseline.visits);
  const direction = now > before ? 'rise' : now < before ? 'fall' : 'none';
  const out: FlaggedShares = { direction };
  if (share !== undefined) out.share = share;
  if (baselineShare !== undefined) out.baselineShare = baselineShare;
  if (direction !== 'none' && share !== undefined && baselineShare !== undefined) {
    const flaggedChange = share * now - baselineShare * before;
    out.changeShare = unit(flaggedChange / (now - before));
  }
  return out;
}

export interface FlaggedVerdict {
  verdict: ExplanationVerdict;
  shares: FlaggedShares;
  /** The verdict with its figures, plain words (not yet escaped). */
  text: string;
}

/** A lower bound as a whole percent no higher than it: 0.6251 → "62%". */
const percentDown = (share: number): string => `${Math.floor(unit(share) * 100 + 1e-9)}%`;
/** An upper bound as a whole percent no lower than it: 0.1949 → "20%". */
const percentUp = (share: number): string => `${Math.ceil(unit(share) * 100 - 1e-9)}%`;

/** 0.714 → "71%"; a share above 0 that rounds to 0 is "<1%", one below 1 that rounds to 100 ">99%". */
export function percent(share: number): string {
  const pct = unit(share) * 100;
  if (pct > 0 && pct < 0.5) return '<1%';
  if (pct < 100 && pct >= 99.5) return '>99%';
  return `${Math.round(pct)}%`;
}

/** Who moved it: the verdict and the figures it rests on. */
export function verdict(input: FlaggedInput): FlaggedVerdict {
  const shares = flaggedShare(input);
  const visitors = count(input.visitors);
  const judged = Math.min(count(input.judgedVisitors), visitors);
  const judging = `${formatCount(judged)} of ${counted(visitors, 'visitor')} judged`;
  const notes = judged < visitors ? (input.sampled ? `sampled: ${judging}` : judging) : undefined;
  if (!input.scanOn)
    return {
      verdict: 'unknown: threat checks are off',
      shares: { direction: shares.direction },
      text: `unknown: threat checks are off, so ${visitors === 1 ? 'the one visitor was not judged' : `none of the ${formatCount(visitors)} visitors was judged`}`,
    };
  const ofChange = shares.direction !== 'none' && shares.changeShare !== undefined;
  if (judged < visitors && judged < MIN_JUDGED_VISITORS)
    return {
      verdict: 'unknown: too few visitors judged',
      shares,
      text: `unknown: too few visitors judged (${judging})`,
    };
  if (ofChange) {
    const basis = shares.changeShare!;
    const name = verdictAt(basis);
    const figures = [`usual ${percent(shares.baselineShare!)}`, notes].filter((x): x is string => x !== undefined);
    return {
      verdict: name,
      shares,
      text: `${name}: ${percent(basis)} of the ${shares.direction} is from flagged visitors (${figures.join('; ')})`,
    };
  }
  if (shares.share === undefined)
    return {
      verdict: 'unknown: too few visitors judged',
      shares,
      text: `unknown: too few visitors judged (${judging})`,
    };
  return unjudgedBaseline(input, shares, notes);
}

const verdictAt = (share: number): ExplanationVerdict =>
  share >= MOSTLY_AUTOMATED_AT ? 'mostly automated' : share < MOSTLY_PEOPLE_BELOW ? 'mostly people' : 'mixed';

/**
 * No visitor of the baseline was judged: its flagged visits lie anywhere from none to all of
 * them, so the flagged share of the change lies between two bounds. A verdict is given only
 * where both bounds agree on it; the period's own share is said either way.
 */
function unjudgedBaseline(input: FlaggedInput, shares: FlaggedShares, notes: string | undefined): FlaggedVerdict {
  const now = count(input.current.visits);
  const before = count(input.baseline.visits);
  const flaggedNow = shares.share! * now;
  const change = now - before;
  const own = `${percent(shares.share!)} of the period's visits are from flagged visitors`;
  const figures = ['usual share unknown: no visitor of the baseline judged', notes].filter(
    (x): x is string => x !== undefined,
  );
  if (change === 0)
    return {
      verdict: 'unknown: usual share unknown',
      shares,
      text: `no change to explain: ${own} (${figures.join('; ')})`,
    };
  // The flagged part of the change is flaggedNow − flaggedBefore, with 0 ≤ flaggedBefore ≤ before.
  const a = unit(flaggedNow / change);
  const b = unit((flaggedNow - before) / change);
  const [low, high] = a <= b ? [a, b] : [b, a];
  // Bounds are rounded outward (percentDown, percentUp), so "at least" and "at most" stay true as printed.
  const of = `of the ${shares.direction} is from flagged visitors`;
  if (low >= MOSTLY_AUTOMATED_AT)
    return {
      verdict: 'mostly automated',
      shares,
      text: `mostly automated: ${low >= 1 ? 'all' : `at least ${percentDown(low)}`} ${of}; ${own} (${figures.join('; ')})`,
    };
  if (high < MOSTLY_PEOPLE_BELOW)
    return {
      verdict: 'mostly people',
      shares,
      text: `mostly people: ${high <= 0 ? 'none' : `at most ${percentUp(high)}`} ${of}; ${own} (${figures.join('; ')})`,
    };
  return {
    verdict: 'unknown: usual share unknown',
    shares,
    text: `unknown: between ${percentDown(low)} and ${percentUp(high)} ${of}; ${own} (${figures.join('; ')})`,
  };
}

/** A signed count: "+212", "−40", "0". */
export const signedCount = (n: number): string =>
  n > 0 ? `+${formatCount(Math.round(n))}` : n < 0 ? `−${formatCount(Math.round(-n))}` : '0';

/** A mover in plain words (not escaped): "x.com +212 (new)", "x.com +150 (new; everything else −19)". */
export function moverWords(m: Mover, maxLabel: number): string {
  const notes = [
    ...(m.isNew ? ['new'] : m.newInTop ? [`new in the top ${MOVERS_TOP}`] : []),
    ...(m.rest !== undefined ? [`everything else ${signedCount(m.rest)}`] : []),
  ];
  return `${clip(m.label, maxLabel)} ${signedCount(m.change)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}
