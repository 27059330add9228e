/**
 * What the answer's own code costs a command when it runs hot (call after call) and when it
 * runs after an idle gap, as each command does at a steady low rate: a gap of 50 ms is 20
 * commands a second, 10 ms is 100, 3 ms about 300. The code is Lookout's answer to a report
 * command without the network (bench/apps/answer.mjs, from dist/, as the answer floor runs it),
 * step by step: parse the command's text, resolve its range, render the report message,
 * check it against Slack's rules (the preflight) and serialise it. Each step's CPU time is
 * read with `process.cpuUsage` around it. The hot figure is the floor, measured in the same
 * run: every call first runs the same code, timing included, thousands of times, so V8 has
 * optimised it either way.
 * Run: npm run bench -- cold   (BENCH_GAPS 0,3,10,50 ms; BENCH_CALLS 300 a gap; BENCH_ROUNDS 3)
 */
import type { AggregateRow } from '../src/platform/api/schemas.js';
import { buildDist, median } from './stats.js';

const GAPS = (process.env.BENCH_GAPS ?? '0,3,10,50').split(',').map(Number);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM = 5_000;

const REPORTS_ASKED = ['sources', 'countries', 'browsers', 'devices', 'cities'];
const RANGES = ['last7d', 'last30d', 'today', 'yesterday', 'mtd'];
const rows: AggregateRow[] = Array.from({ length: 10 }, (_, i) => ({
  name: `source-${i}.example.com`,
  label: undefined,
  id: undefined,
  total_visits: 1000 - i * 37,
  unique_visitors: 500 - i * 11,
  average_duration: 92 + i,
}));
const STEPS = ['parse', 'range', 'render', 'preflight', 'serialise'] as const;
type Step = (typeof STEPS)[number];

console.log('[cold] building dist/');
await buildDist();
const { parse, range, render, check } = await import('./apps/answer.mjs');

let seq = 0;
const none = (): Record<Step, number> => ({ parse: 0, range: 0, render: 0, preflight: 0, serialise: 0 });
/** One command's answer, step by step; each step's CPU time (µs) added to `spent`. */
function answer(spent: Record<Step, number>): number {
  const text = `${REPORTS_ASKED[seq % REPORTS_ASKED.length]} ${RANGES[seq++ % RANGES.length]}`;
  let before = process.cpuUsage();
  const step = (name: Step) => {
    const used = process.cpuUsage(before);
    spent[name] += used.user + used.system;
    before = process.cpuUsage();
  };
  const query = parse(text);
  if (!query) throw new Error(`"${text}" did not parse as a report`);
  step('parse');
  const now = new Date();
  const dates = range(query, now);
  step('range');
  const message = render(query, dates, rows, now);
  step('render');
  const checked = check(message);
  step('preflight');
  const body = JSON.stringify({ ...checked, response_type: 'ephemeral' });
  step('serialise');
  return body.length;
}

/** CPU per answer (µs, the median call's of each step) with `gapMs` idle between calls; 0: back to back. */
async function measure(gapMs: number): Promise<Record<Step | 'total', number>> {
  const each: Record<Step | 'total', number[]> = {
    parse: [],
    range: [],
    render: [],
    preflight: [],
    serialise: [],
    total: [],
  };
  for (let i = 0; i < CALLS; i++) {
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    const spent = none();
    answer(spent);
    for (const s of STEPS) each[s].push(spent[s]);
    each.total.push(STEPS.reduce((sum, s) => sum + spent[s], 0));
  }
  return Object.fromEntries(Object.entries(each).map(([k, v]) => [k, median(v)])) as Record<Step | 'total', number>;
}

console.log(`[cold] warming up: ${WARM} answers`);
let bytes = 0;
for (let i = 0; i < WARM; i++) bytes = answer(none());
console.log(`[cold] each answer is ${bytes} bytes; ${ROUNDS} rounds × gaps ${GAPS.join(', ')} ms × ${CALLS} calls`);

const results = new Map<number, Record<Step | 'total', number>[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const gap of GAPS) {
    const r = await measure(gap);
    results.set(gap, [...(results.get(gap) ?? []), r]);
    console.log(
      `[cold] round ${round} gap ${String(gap).padStart(2)} ms: ${r.total} µs of CPU an answer (median call)`,
    );
  }
}

const hot = GAPS[0]!;
const ratios = (gap: number) => results.get(gap)!.map((r, i) => r.total / results.get(hot)![i]!.total);
console.log(
  `\nMedians of ${ROUNDS} rounds, each the median of ${CALLS} calls; µs of CPU per answer; ÷ the first gap's figure (${hot} ms) round by round (Node ${process.version}):`,
);
console.log(`| gap | ${STEPS.join(' | ')} | total | ÷ ${hot} ms |`);
console.log(`|---|${STEPS.map(() => '---|').join('')}---|---|`);
for (const gap of GAPS) {
  const m = (k: Step | 'total') => median(results.get(gap)!.map((r) => r[k]));
  const each = ratios(gap);
  const spread = each.length > 1 ? ` (${Math.min(...each).toFixed(1)}–${Math.max(...each).toFixed(1)})` : '';
  console.log(
    `| ${gap} ms | ${STEPS.map((s) => m(s)).join(' | ')} | ${m('total')} | ${median(each).toFixed(1)}×${spread} |`,
  );
}
