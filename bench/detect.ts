/**
 * `npm run bench -- detect`: the spike rule today (3× the median of the same hour over the 4
 * weeks before, and at least 10 more) against the rule judged against the noise
 * (src/kernel/robust-spike.ts), on the same generated histories: a quiet site and a busy one,
 * 8 weeks of hourly visits with a daily and weekly cycle, counting noise and some day-to-day
 * variation, one holiday week at half the traffic, and spikes of +30%, +50%, +100% and +200%
 * at known hours of the last two weeks. For each rule: false alerts per watch per week (hours
 * without a produced spike, weeks 5–8, each judged against the 4 weeks before it), and the
 * share of produced spikes caught, also on hours whose usual is at least 50 visits. Then a
 * small grid of the new rule's settings, to show where the defaults come from.
 * Deterministic (seeded); no I/O beyond printing.
 */
import { judgeAgainstNoise, NOISE_RULE, type NoiseRule } from '../src/kernel/robust-spike.js';

const WEEKS = 8;
const HOURS = 168;
const HISTORY = 4;
const HOLIDAY_WEEK = 5;
const SPIKE_WEEKS = [6, 7];
const SIZES = [0.3, 0.5, 1, 2];
const SPIKES_PER_SIZE = 6;
const SITES = 30;

/** mulberry32: a small seeded generator, so every run measures the same histories. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(lambda: number, random: () => number): number {
  if (lambda > 60) {
    const u = Math.max(random(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * z));
  }
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/** The expected visits of an hour of the week: night and day, weekdays above weekends. */
function shape(hourOfWeek: number, scale: number): number {
  const day = Math.floor(hourOfWeek / 24);
  const hour = hourOfWeek % 24;
  const daily = hour < 7 ? 0.15 : hour < 9 ? 0.6 : hour < 18 ? 1 : hour < 22 ? 0.55 : 0.25;
  const weekly = day >= 5 ? 0.6 : 1;
  return scale * daily * weekly;
}

interface Site {
  visits: number[][];
  spikes: Map<string, number>;
}

function generate(scale: number, seed: number): Site {
  const random = rng(seed);
  const spikes = new Map<string, number>();
  for (const size of SIZES)
    for (let i = 0; i < SPIKES_PER_SIZE; i++) {
      const week = SPIKE_WEEKS[Math.floor(random() * SPIKE_WEEKS.length)] ?? 6;
      // Daytime hours: a spike at 3 a.m. on a quiet site is a handful of visits either way.
      const hour = Math.floor(random() * 5) * 24 + 9 + Math.floor(random() * 9);
      spikes.set(`${week}:${hour}`, size);
    }
  const visits = Array.from({ length: WEEKS }, (_, week) => {
    const dayFactor = Array.from({ length: 7 }, () => Math.exp(0.12 * (random() * 2 - 1)));
    return Array.from({ length: HOURS }, (_, hour) => {
      let lambda = shape(hour, scale) * (dayFactor[Math.floor(hour / 24)] ?? 1);
      if (week === HOLIDAY_WEEK) lambda *= 0.5;
      lambda *= 1 + (spikes.get(`${week}:${hour}`) ?? 0);
      return poisson(lambda, random);
    });
  });
  return { visits, spikes };
}

type Rule = (value: number, history: number[]) => boolean;

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const OLD: Rule = (value, history) => value >= 3 * median(history) && value - median(history) >= 10;
const robust =
  (rule: NoiseRule): Rule =>
  (value, history) =>
    judgeAgainstNoise(value, history, rule).kind === 'spike';

interface Score {
  falsePerWeek: number;
  caught: Record<string, number>;
  caughtBusyHours: Record<string, number>;
}

function score(rule: Rule, scale: number): Score {
  let falseAlerts = 0;
  let watchWeeks = 0;
  const caught: Record<string, [number, number]> = {};
  const busy: Record<string, [number, number]> = {};
  for (let s = 0; s < SITES; s++) {
    const site = generate(scale, 1000 + s + scale);
    for (let week = HISTORY; week < WEEKS; week++) {
      watchWeeks++;
      for (let hour = 0; hour < HOURS; hour++) {
        const history = site.visits.slice(week - HISTORY, week).map((w) => w[hour] ?? 0);
        const alerted = rule(site.visits[week]?.[hour] ?? 0, history);
        const size = site.spikes.get(`${week}:${hour}`);
        if (size === undefined) {
          if (alerted) falseAlerts++;
          continue;
        }
        const key = `+${size * 100}%`;
        const c = (caught[key] ??= [0, 0]);
        c[0] += alerted ? 1 : 0;
        c[1]++;
        if (median(history) >= 50) {
          const b = (busy[key] ??= [0, 0]);
          b[0] += alerted ? 1 : 0;
          b[1]++;
        }
      }
    }
  }
  const share = (m: Record<string, [number, number]>) =>
    Object.fromEntries(Object.entries(m).map(([k, [hit, all]]) => [k, all ? hit / all : NaN]));
  return { falsePerWeek: falseAlerts / watchWeeks, caught: share(caught), caughtBusyHours: share(busy) };
}

const pct = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : `${Math.round(v * 100)}%`);
const line = (name: string, s: Score) =>
  `${name.padEnd(34)} ${s.falsePerWeek.toFixed(2).padStart(6)}   ${SIZES.map((z) => pct(s.caught[`+${z * 100}%`]).padStart(5)).join(' ')}   ${SIZES.map((z) => pct(s.caughtBusyHours[`+${z * 100}%`]).padStart(5)).join(' ')}`;

console.log(
  `[detect] ${SITES} sites each, ${WEEKS} weeks of hourly visits, holiday in week ${HOLIDAY_WEEK + 1}, ${SPIKES_PER_SIZE} spikes of each size in weeks 7–8; rules judged on weeks 5–8 against the 4 weeks before`,
);
console.log(
  `[detect] ${'rule, site'.padEnd(34)} false/wk   caught ${SIZES.map((z) => `+${z * 100}%`).join(' ')}   caught where usual ≥ 50`,
);
for (const [site, scale] of [
  ['quiet (day hours ~15 visits)', 15],
  ['busy (day hours ~250 visits)', 250],
] as const) {
  console.log(line(`old 3× median, +10: ${site.split(' ')[0]}`, score(OLD, scale)));
  console.log(line(`noise (defaults): ${site.split(' ')[0]}`, score(robust(NOISE_RULE), scale)));
}
console.log('[detect] the noise rule across its settings (minSpreads, minCount, minRelative): quiet | busy');
for (const minSpreads of [3, 4, 5])
  for (const minRelative of [0.3, 0.5])
    for (const minCount of [10, 20]) {
      const rule = { ...NOISE_RULE, minSpreads, minRelative, minCount };
      const q = score(robust(rule), 15);
      const b = score(robust(rule), 250);
      console.log(
        `[detect]   ${String(minSpreads).padStart(2)} ${String(minCount).padStart(3)} ${minRelative.toFixed(1)}   false/wk ${q.falsePerWeek.toFixed(2)} | ${b.falsePerWeek.toFixed(2)}   +100% caught ${pct(q.caught['+100%'])} | ${pct(b.caught['+100%'])}, where usual ≥ 50: ${pct(b.caughtBusyHours['+100%'])}`,
      );
    }
