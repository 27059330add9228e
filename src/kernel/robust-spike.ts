/**
 * A spike or a drop judged against the noise (issue 37's rule, not yet a watch's): the same
 * hour-of-week (or weekday) over several weeks gives the usual value (their median) and its
 * noise (the median absolute deviation, scaled to a standard deviation, and never below the
 * counting noise of the usual value itself). A value is a spike when it is far from the usual
 * in units of that noise, and large enough to matter: a minimum count above the usual and a
 * minimum relative change, each stated. Pure: bench/detect.ts chooses the defaults by measuring.
 */

/** How far, and how large, a change must be to count. */
export interface NoiseRule {
  /** Spreads (robust standard deviations) the value must be from the usual. */
  minSpreads: number;
  /** Visits the value must differ from the usual by. */
  minCount: number;
  /** Relative change the value must reach (0.5: 50% above, or below, the usual). */
  minRelative: number;
  /** Past periods needed before anything is said. */
  minHistory: number;
}

/** The defaults measured with bench/detect.ts (docs/benchmarks.md). */
export const NOISE_RULE: NoiseRule = { minSpreads: 4, minCount: 20, minRelative: 0.5, minHistory: 3 };

/** The MAD of normally distributed values times this is their standard deviation. */
const MAD_TO_SD = 1.4826;

export interface Usual {
  /** The median of the past periods. */
  usual: number;
  /** The noise: the scaled MAD, at least the square root of the usual (counts vary that much by chance). */
  spread: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The usual value of `history` (the same hour-of-week in the weeks before) and its noise. */
export function usualOf(history: readonly number[]): Usual {
  const usual = median(history);
  const mad = median(history.map((v) => Math.abs(v - usual)));
  return { usual, spread: Math.max(MAD_TO_SD * mad, Math.sqrt(usual), 1) };
}

export type NoiseVerdict =
  | { kind: 'spike' | 'drop' | 'usual'; value: number; usual: number; spread: number; spreads: number }
  | { kind: 'unknown'; why: string };

/** `value` against `history` by `rule`: a spike, a drop, the usual, or unknown (too little history). */
export function judgeAgainstNoise(
  value: number,
  history: readonly number[],
  rule: NoiseRule = NOISE_RULE,
): NoiseVerdict {
  if (history.length < rule.minHistory)
    return { kind: 'unknown', why: `${history.length} of the ${rule.minHistory} past periods needed` };
  const { usual, spread } = usualOf(history);
  const spreads = (value - usual) / spread;
  const far = Math.abs(spreads) >= rule.minSpreads;
  const large = Math.abs(value - usual) >= rule.minCount;
  const relative = usual === 0 ? Infinity : Math.abs(value - usual) / usual;
  const kind = far && large && relative >= rule.minRelative ? (value > usual ? 'spike' : 'drop') : 'usual';
  return { kind, value, usual, spread, spreads };
}
