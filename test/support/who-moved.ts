/**
 * Reads "Who moved it" against a truth the explanation did not see: the verdict the true
 * flagged visits give, and whether each share the words state (a figure, bounds, "at
 * least"…) holds the true one. The truth is counted in whole visits: the change and its
 * flagged part times the number of baseline periods, so no rounding moves it off a threshold.
 */

export interface Truth {
  /** The period's visits and its visits by visitors the lookups flag. */
  visits: number;
  flagged: number;
  /** The same of each baseline period. */
  baseline: readonly { visits: number; flagged: number }[];
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function trueShares(t: Truth) {
  const n = t.baseline.length;
  const usualVisits = sum(t.baseline.map((p) => p.visits));
  const change = n * t.visits - usualVisits;
  const flaggedChange = n * t.flagged - sum(t.baseline.map((p) => p.flagged));
  const verdict =
    change === 0
      ? undefined
      : (change > 0 ? 2 * flaggedChange >= change : 2 * flaggedChange <= change)
        ? 'mostly automated'
        : (change > 0 ? 5 * flaggedChange < change : 5 * flaggedChange > change)
          ? 'mostly people'
          : 'mixed';
  return {
    change,
    direction: change > 0 ? 'rise' : change < 0 ? 'fall' : 'none',
    /** Of the change, the share from flagged visitors, 0–1. */
    changeShare: change === 0 ? undefined : Math.min(1, Math.max(0, flaggedChange / change)),
    verdict,
    usual: usualVisits === 0 ? undefined : sum(t.baseline.map((p) => p.flagged)) / usualVisits,
    now: t.visits === 0 ? undefined : t.flagged / t.visits,
  };
}

const EPS = 1e-9;

/** A share as stated ("6%", "49.7%", "<1%", ">99%", "2–30%") holds the true share `t` (0–1). */
export function holds(stated: string, t: number): boolean {
  const pct = t * 100;
  const range = /^(\d+)–(\d+)%$/.exec(stated);
  if (range) return Number(range[1]) - EPS <= pct && pct <= Number(range[2]) + EPS;
  if (stated === '<1%') return pct > 0 && pct < 0.5;
  if (stated === '>99%') return pct >= 99.5 && pct < 100;
  const tenth = /^(\d+\.\d)%$/.exec(stated);
  if (tenth) return Math.abs(Number(tenth[1]) - pct) <= 0.1 + EPS;
  const point = /^(\d+)%$/.exec(stated);
  return !!point && Math.abs(Number(point[1]) - pct) <= 0.5 + EPS;
}

/** The share of the change as stated ("none", "all", "71%", "49.7%", "at least 62%", "at most 3%", "under 20%", "between 49% and 70%") holds `t`. */
export function changeHolds(stated: string, t: number): boolean {
  const pct = t * 100;
  if (stated === 'none') return t === 0;
  if (stated === 'all') return t === 1;
  const least = /^at least (\d+)%$/.exec(stated);
  if (least) return pct >= Number(least[1]) - EPS;
  const most = /^at most (\d+)%$/.exec(stated);
  if (most) return pct <= Number(most[1]) + EPS;
  const under = /^under (\d+)%$/.exec(stated);
  if (under) return pct < Number(under[1]);
  const between = /^between (\d+)% and (\d+)%$/.exec(stated);
  if (between) return Number(between[1]) - EPS <= pct && pct <= Number(between[2]) + EPS;
  return holds(stated, t);
}

export interface WhoMoved {
  /** "mostly automated", "mostly people", "mixed", "unknown" or "no change". */
  verdict: string;
  /** The share of the change as stated ("71%", "at least 62%", …), and which way. */
  ofChange?: string;
  direction?: string;
  /** Each share named in the parentheses ("usual", "this hour"): what is said of it ("6%", "2–30%", "share unknown", "no visits"). */
  figures: Record<string, string>;
}

/** The words of "Who moved it" (the text after it), taken apart. */
export function readWhoMoved(text: string): WhoMoved {
  const head =
    /^(mostly automated|mostly people|mixed|unknown): (.+?) of the (rise|fall) is from flagged visitors/.exec(text);
  const figures: Record<string, string> = {};
  const inside = /\(([^()]*)\)$/.exec(text)?.[1] ?? '';
  for (const part of inside.split('; ')) {
    const m = /^(usual|this \w+)(?:'s share| share)? (unknown|[^:]+)|^(usual|this \w+): no visits$/.exec(part);
    if (m?.[3]) figures[m[3]] = 'no visits';
    else if (m) figures[m[1]!] = /share unknown|^unknown/.test(part.slice(m[1]!.length).trim()) ? 'unknown' : m[2]!;
  }
  if (!head)
    return {
      verdict: text.startsWith('no change to explain') ? 'no change' : (/^[^:(]+/.exec(text)?.[0] ?? text),
      figures,
    };
  return { verdict: head[1]!, ofChange: head[2]!, direction: head[3]!, figures };
}

/**
 * Every way the words could be false against the truth, as sentences (none when true): a
 * verdict other than the true one (unknown is never false), a share of the change or a
 * period's share that excludes the true one.
 */
export function falsehoods(text: string, truth: Truth): string[] {
  const t = trueShares(truth);
  const said = readWhoMoved(text);
  const out: string[] = [];
  if (said.verdict !== 'unknown' && said.verdict !== (t.verdict ?? 'no change'))
    out.push(`says "${said.verdict}", the truth is "${t.verdict ?? 'no change'}"`);
  if (t.changeShare !== undefined) {
    if (said.direction !== t.direction) out.push(`says a ${said.direction ?? '?'}, the truth is a ${t.direction}`);
    else if (!changeHolds(said.ofChange!, t.changeShare))
      out.push(`says ${said.ofChange} of the ${t.direction}, the truth is ${(t.changeShare * 100).toFixed(2)}%`);
  }
  for (const [name, share] of Object.entries(said.figures)) {
    const trueShare = name === 'usual' ? t.usual : t.now;
    if (share === 'unknown') continue;
    if (share === 'no visits') {
      if (trueShare !== undefined) out.push(`says ${name} had no visits`);
    } else if (trueShare === undefined || !holds(share, trueShare))
      out.push(
        `says ${name} ${share}, the truth is ${trueShare === undefined ? 'no visits' : `${(trueShare * 100).toFixed(2)}%`}`,
      );
  }
  return out;
}
