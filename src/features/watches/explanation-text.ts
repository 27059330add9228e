/**
 * Why a watch's figure moved, in two lines: what moved (the entries that account for most
 * of the change) and who moved it (the share of visits from flagged visitors, against the
 * baseline, with a verdict in words). The figures are kernel/movers.ts's and
 * kernel/flagged-share.ts's; this file words them for Slack.
 */
import type { ExplanationVerdict, FlaggedVerdict } from '../../kernel/flagged-share.js';
import { moverWords, type Mover } from '../../kernel/movers.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { clipMrkdwn, LIMITS } from '../../platform/slack/kit/limits.js';

/** A label is cut to this many characters in the text. */
export const MAX_LABEL = 60;

function moverText(m: Mover): string {
  return escapeMrkdwn(moverWords(m, MAX_LABEL));
}

export interface ExplanationText {
  /** "What moved: source x.com +212 (new), page /pricing +140, country Germany +96" (mrkdwn, labels escaped). */
  whatMoved: string;
  /** "Who moved it: mostly automated: 71% of the rise is from flagged visitors (this hour 55%; usual 6%)". */
  whoMoved: string;
  /** Both lines, within `max`. */
  text: string;
}

/**
 * The two lines of an explanation as mrkdwn: every label goes through the one escaping
 * path, and the whole stays within `max` (default a section's text limit). `change` is
 * the total change the movers were chosen from, so an empty list can say why it is empty.
 */
export function explanationText(
  moved: readonly Mover[],
  who: FlaggedVerdict,
  change: number,
  max: number = LIMITS.sectionText,
  against?: string,
): ExplanationText {
  const names =
    moved.length > 0
      ? moved.map(moverText).join(', ')
      : change === 0
        ? 'nothing in total'
        : 'no entry to name: rises and falls of entries cancel out most of the change';
  const whatMoved = clipMrkdwn(
    `${against ? `*What moved* (against ${escapeMrkdwn(against)}):` : '*What moved:*'} ${names}`,
    Math.floor(max / 2),
  );
  const whoMoved = clipMrkdwn(`*Who moved it:* ${escapeMrkdwn(who.text)}`, max - 1 - Array.from(whatMoved).length);
  return { whatMoved, whoMoved, text: `${whatMoved}\n${whoMoved}` };
}

/** What an alert shows under its figures, and what its buttons need. */
export interface Explanation {
  /** The period explained (its key). */
  period: string;
  /** Two lines of mrkdwn, labels escaped, within a section's limit. */
  text: string;
  verdict: ExplanationVerdict;
  /** The period's flagged visitors with the most visits, most first (at most FLAGGED_LISTED). */
  flagged: string[];
  /** How many flagged visitors the period had in all. */
  flaggedCount: number;
  /** The entries that moved (absent in explanations kept before they were). */
  moved?: Mover[];
  /** Who moved it: the verdict with its figures in plain words, and the flagged shares' bounds. */
  who?: Pick<FlaggedVerdict, 'text' | 'shares'>;
}
