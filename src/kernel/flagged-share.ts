/**
 * Who moved it, stated only as far as it is known. Of a period we know its visits (V), the
 * visits by visitors the threat scan judged (J) and by those it judged flagged (F). Judged
 * visitors are no sample of the others (the scan judges returning visitors and scrapers
 * first), so the V − J unjudged visits may be anywhere from none to all flagged: the period's
 * flagged visits lie in [F, F + V − J]. Every share, bound and verdict here follows from
 * those bounds alone; a share is one figure only where every visit was judged. Pure.
 */
import { counted, formatCount } from './format.js';

/** At or above this share of the change from flagged visitors: "mostly automated". */
export const MOSTLY_AUTOMATED_AT = 0.5;
/** Below this share of the change from flagged visitors: "mostly people"; between the two: "mixed". */
export const MOSTLY_PEOPLE_BELOW = 0.2;
/**
 * A period with less than this part of its visits judged has its share said to be unknown,
 * with how many were judged: its bounds would span more than half of 0–100%.
 */
export const SHARE_BOUNDED_FROM = 0.5;

/** One period's visits, and what the threat scan (and a sample of the rest) made of their visitors. */
export interface PeriodJudgement {
  /** Every visit of the period: the stated total. */
  visits: number;
  /** Visits by visitors that have been judged, flagged or not. */
  judgedVisits: number;
  /** Visits by visitors judged flagged (threat, scraper, VPN abuser). */
  flaggedVisits: number;
}

/** What is known of a figure: at least `low`, at most `high` (equal where it is known). */
export interface Bounds {
  low: number;
  high: number;
}

/** Visits as a count: anything not a finite non-negative number counts as none. */
const count = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);
const unit = (n: number): number => Math.min(1, Math.max(0, n));

/** A period's figures made to agree: flagged ≤ judged ≤ visits. */
function agreed(p: PeriodJudgement): PeriodJudgement {
  const visits = count(p.visits);
  const judgedVisits = Math.min(count(p.judgedVisits), visits);
  return { visits, judgedVisits, flaggedVisits: Math.min(count(p.flaggedVisits), judgedVisits) };
}

/** The period's visits by flagged visitors: its judged flagged ones, up to those and every unjudged one. */
export function flaggedVisitsIn(p: PeriodJudgement): Bounds {
  const { visits, judgedVisits, flaggedVisits } = agreed(p);
  return { low: flaggedVisits, high: flaggedVisits + visits - judgedVisits };
}

/** The share of the period's visits from flagged visitors, 0–1; undefined for a period without visits. */
export function shareBounds(p: PeriodJudgement): Bounds | undefined {
  const { visits } = agreed(p);
  if (visits === 0) return undefined;
  const flagged = flaggedVisitsIn(p);
  return { low: unit(flagged.low / visits), high: unit(flagged.high / visits) };
}

/** How a period's share is stated: one figure (every visit judged), its bounds, or unknown (too few judged). */
export function shareKnown(p: PeriodJudgement): 'exact' | 'bounded' | 'unknown' {
  const { visits, judgedVisits } = agreed(p);
  if (judgedVisits === visits) return 'exact';
  return judgedVisits >= visits * SHARE_BOUNDED_FROM ? 'bounded' : 'unknown';
}

/** A lower bound as a whole percent no higher than it: 0.6251 → "62%". */
export const percentDown = (share: number): string => `${Math.floor(unit(share) * 100 + 1e-9)}%`;
/** An upper bound as a whole percent no lower than it: 0.1949 → "20%". */
export const percentUp = (share: number): string => `${Math.ceil(unit(share) * 100 - 1e-9)}%`;

/** 0.714 → "71%"; a share above 0 that rounds to 0 is "<1%", one below 1 that rounds to 100 ">99%". */
export function percent(share: number): string {
  const pct = unit(share) * 100;
  if (pct > 0 && pct < 0.5) return '<1%';
  if (pct < 100 && pct >= 99.5) return '>99%';
  return `${Math.round(pct)}%`;
}

/** A share as known: "36%" where its bounds meet, else "12–30%" (rounded outward, so it stays true as printed). */
export function shareRange(b: Bounds): string {
  if (b.low === b.high) return percent(b.low);
  const low = percentDown(b.low);
  const high = percentUp(b.high);
  return low === high ? low : `${low.slice(0, -1)}–${high}`;
}

export interface FlaggedInput {
  current: PeriodJudgement;
  /** The baseline: the sums over its periods (the usual is their average). */
  baseline: PeriodJudgement;
  /** How many periods the baseline sums (default 1). */
  baselinePeriods?: number;
  /** The threat scan is on: without it no visitor is judged. */
  scanOn: boolean;
  /** Distinct visitors of the current period, and how many of them were judged. */
  visitors: number;
  judgedVisitors: number;
  /** Some judgements come from a sample of the unjudged visitors, looked up for this explanation. */
  sampled: boolean;
  /** What the current period is called in the words: "this hour" (default "this period"). */
  periodName?: string;
}

export interface FlaggedShares {
  /** Which way the visits moved against the baseline's average. */
  direction: 'rise' | 'fall' | 'none';
  /** The share of the period's visits from flagged visitors (undefined without visits). */
  share?: Bounds;
  /** The same share in the baseline. */
  baselineShare?: Bounds;
  /** Of the rise (or fall), the share from flagged visitors, within 0–1. */
  changeShare?: Bounds;
}

/**
 * The shares of visits from flagged visitors: in the period, in the baseline, and of the
 * change between them. The flagged part of the change lies between the period's fewest
 * flagged visits less the baseline's most, and its most less the baseline's fewest; over
 * the change, clamped to 0–1 (flagged visits that rose during a fall are none of the fall).
 * The baseline's sums are compared with the period times the number of baseline periods,
 * so whole visits stay whole and a share on a threshold is not moved off it by rounding.
 */
export function flaggedShare(input: FlaggedInput): FlaggedShares {
  const n = Math.max(1, Math.floor(count(input.baselinePeriods ?? 1)));
  const now = agreed(input.current);
  const before = agreed(input.baseline);
  const change = n * now.visits - before.visits;
  const out: FlaggedShares = { direction: change > 0 ? 'rise' : change < 0 ? 'fall' : 'none' };
  const share = shareBounds(now);
  const baselineShare = shareBounds(before);
  if (share) out.share = share;
  if (baselineShare) out.baselineShare = baselineShare;
  if (change !== 0) {
    const flaggedNow = flaggedVisitsIn(now);
    const flaggedBefore = flaggedVisitsIn(before);
    const a = unit((n * flaggedNow.low - flaggedBefore.high) / change);
    const b = unit((n * flaggedNow.high - flaggedBefore.low) / change);
    out.changeShare = { low: Math.min(a, b), high: Math.max(a, b) };
  }
  return out;
}

export type ExplanationVerdict =
  | 'mostly automated'
  | 'mostly people'
  | 'mixed'
  | 'unknown: threat checks are off'
  | 'unknown: too few visits judged'
  | 'unknown: no change'
  | 'unknown: could not be told';

export interface FlaggedVerdict {
  verdict: ExplanationVerdict;
  shares: FlaggedShares;
  /** The verdict with its figures, plain words (not yet escaped). */
  text: string;
}

/** The verdict a share of the change gives. */
export const verdictAt = (share: number): ExplanationVerdict =>
  share >= MOSTLY_AUTOMATED_AT ? 'mostly automated' : share < MOSTLY_PEOPLE_BELOW ? 'mostly people' : 'mixed';

const THRESHOLDS = [MOSTLY_PEOPLE_BELOW, MOSTLY_AUTOMATED_AT];

/** A share as a whole percent, or to a tenth where the whole one would fall on the other side of a verdict's threshold: 0.497 → "49.7%". */
function pointBeside(x: number): string {
  const rounded = Math.round(x * 100) / 100;
  if (!THRESHOLDS.some((t) => x < t !== rounded < t)) return percent(x);
  return `${(x < rounded ? Math.floor(x * 1000) : Math.ceil(x * 1000)) / 10}%`;
}

/** The share of the change in words: "71%", "none", "at least 62%", "between 49% and 70%". */
function changeWords(b: Bounds): string {
  if (b.low === b.high) return b.low <= 0 ? 'none' : b.high >= 1 ? 'all' : pointBeside(b.low);
  if (b.low > 0 && b.high >= 1) return `at least ${percentDown(b.low)}`;
  if (b.low <= 0 && b.high < 1) {
    // Just under a threshold, rounding up would print the threshold the verdict says it is under.
    const under = THRESHOLDS.find((t) => b.high < t && percentUp(b.high) === percentUp(t));
    return under === undefined ? `at most ${percentUp(b.high)}` : `under ${percentUp(under)}`;
  }
  return `between ${percentDown(b.low)} and ${percentUp(b.high)}`;
}

/**
 * A period's share as far as it is known: "usual 6%", "usual 2–30%: 50 of 64 visits judged",
 * "usual share unknown: 8 of 64 visits judged", "usual: no visits". Counts are the period's
 * (a baseline's summed over its periods).
 */
function shareFigure(name: string, shareName: string, p: PeriodJudgement): string {
  const { visits, judgedVisits } = agreed(p);
  const bounds = shareBounds(p);
  if (!bounds) return `${name}: no visits`;
  const judged = `${formatCount(Math.round(judgedVisits))} of ${counted(Math.round(visits), 'visit')} judged`;
  const known = shareKnown(p);
  if (known === 'exact') return `${name} ${shareRange(bounds)}`;
  if (known === 'bounded') return `${name} ${shareRange(bounds)}: ${judged}`;
  return `${shareName} unknown: ${judged}`;
}

/** Who moved it: the verdict, given only where every share consistent with what is known gives it, and the figures it rests on. */
export function verdict(input: FlaggedInput): FlaggedVerdict {
  const shares = flaggedShare(input);
  const visitors = count(input.visitors);
  const judgedVisitors = Math.min(count(input.judgedVisitors), visitors);
  if (!input.scanOn)
    return {
      verdict: 'unknown: threat checks are off',
      shares: { direction: shares.direction },
      text: `unknown: threat checks are off${visitors === 0 ? '' : visitors === 1 ? ', so the one visitor was not judged' : `, so none of the ${formatCount(visitors)} visitors was judged`}`,
    };
  const period = input.periodName ?? 'this period';
  const figures = [
    shareFigure(period, `${period}'s share`, input.current),
    shareFigure('usual', 'usual share', input.baseline),
    ...(input.sampled ? [`sampled: ${formatCount(judgedVisitors)} of ${counted(visitors, 'visitor')} judged`] : []),
  ].join('; ');
  const change = shares.changeShare;
  if (!change) return { verdict: 'unknown: no change', shares, text: `no change to explain (${figures})` };
  const low = verdictAt(change.low);
  const of = `of the ${shares.direction} is from flagged visitors`;
  if (low === verdictAt(change.high))
    return { verdict: low, shares, text: `${low}: ${changeWords(change)} ${of} (${figures})` };
  // The bounds span more than one verdict: both are said, and why they are apart.
  const between = `between ${percentDown(change.low)} and ${percentUp(change.high)}`;
  return {
    verdict: 'unknown: too few visits judged',
    shares,
    text: `unknown: ${between} ${of}, depending on the visits not judged (${figures})`,
  };
}
