// Lookout's answer to one report command, from dist/, without the network: the steps the answer
// floor (answer-floor.mjs) runs for each command, and bench/cold.ts times one by one.
import { REPORTS } from '../../dist/kernel/catalog.js';
import { encodeQuery, newQuery } from '../../dist/kernel/query.js';
import { resolveRange } from '../../dist/kernel/range-dates.js';
import { parseTrafficCommand } from '../../dist/features/reports/parse.js';
import { reportMessage } from '../../dist/features/reports/blocks.js';
import { PreflightGate } from '../../dist/platform/slack/preflight-gate.js';

const preflight = new PreflightGate();

/** `<report> <range>` read by Lookout's own parser; undefined when it is not a report. */
export function parse(text) {
  const parsed = parseTrafficCommand(text, REPORTS);
  return parsed.kind === 'report' ? parsed.query : undefined;
}

/** `<report> <range>` read as the answer floor reads it: split at the space. */
export function split(text) {
  const [report, range] = text.split(' ');
  return newQuery(REPORTS[report].id, range);
}

/** The query's dates, in UTC as of `now`. */
export function range(query, now) {
  const resolved = resolveRange(query.range, 'UTC', now);
  if (!resolved.ok) throw new Error(resolved.error);
  return resolved.range;
}

/** The report message for `rows`, as a person sees it only to themselves. */
export function render(query, dates, rows, now) {
  const ref = encodeQuery(query);
  return reportMessage({
    def: REPORTS[query.report],
    query,
    range: dates,
    rows,
    timeZone: 'UTC',
    apiZone: 'UTC',
    now,
    demo: false,
    ephemeral: true,
    refs: { current: ref, block: ref, next: ref, trend: ref },
  });
}

/** The message checked against Slack's rules for a response_url, as Lookout sends it. */
export function check(message) {
  return preflight.message('response_url', message);
}
