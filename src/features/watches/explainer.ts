/**
 * Why a watch's figure moved, for its alert: what moved (the entries behind the change
 * against the watch's own baseline periods) and who moved it (the share of visits from
 * visitors the threat scan flagged). The figures come from the same answers a watch and its
 * chart use (the day's visits for an hour, the day's report rows for a day), through the
 * account's shared fetcher; verdicts come from the threat scan's store, never looked up here.
 */
import { REPORTS, type ReportId } from '../../kernel/catalog.js';
import { shortUrl } from '../../kernel/format.js';
import { fieldOf, textOf, type VisitRecord } from '../../kernel/records.js';
import { verdict, type PeriodJudgement } from '../../kernel/flagged-share.js';
import { acrossReports, movers, type Entry, type Mover } from '../../kernel/movers.js';
import { explanationText, type Explanation } from './explanation-text.js';
import { judgedCounts, VERDICTS_KEPT_MS, type JudgedVisits, type WatchObserver, type WatchTenant } from './observe.js';
import { againstUsual, comparedWith, USUAL_WEEKS, type WatchRule } from './plan.js';
import { type WatchPeriod } from './period.js';

/** The reports a total's change is broken down by. */
const BREAKDOWNS: readonly ReportId[] = ['sources', 'pages', 'countries'];
/** Rows asked of each report for a day's movers; a day with this many or more is not compared (cut lists could claim more than the change). */
const ROWS = 1000;
/** Unjudged visitors of the period looked up for an explanation, at most (a sample, said so). */
export const SAMPLE_LOOKUPS = 20;
/** Flagged visitors kept with an explanation for its "Flagged visitors" button. */
export const FLAGGED_LISTED = 25;

export type { Explanation } from './explanation-text.js';

/** A visit's entry in a breakdown: its source, its page's path, its country. */
function entryOf(report: ReportId, v: VisitRecord): string | undefined {
  // A page as /pages counts it: its path, without the visit's query or fragment.
  if (report === 'pages') return v.url ? shortUrl(v.url.split(/[?#]/)[0]) : undefined;
  if (report === 'countries') return stringOf(fieldOf(v, 'location.country'));
  if (report === 'sources') {
    const source = stringOf(fieldOf(v, 'trafficSource.source'));
    if (source) return source;
    if (!v.referrer) return 'direct';
    try {
      return new URL(v.referrer).host.replace(/^www\./, '');
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const stringOf = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);

function tally(report: ReportId, visits: readonly VisitRecord[]): Entry[] {
  const counts = new Map<string, number>();
  for (const v of visits) {
    const label = entryOf(report, v);
    if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, visits]) => ({ label, visits }));
}

/** Each label's average over the baseline periods (a label absent from one counts 0 there). */
function average(periods: readonly Entry[][]): Entry[] {
  if (periods.length === 0) return [];
  const sums = new Map<string, number>();
  for (const entries of periods) for (const e of entries) sums.set(e.label, (sums.get(e.label) ?? 0) + e.visits);
  return [...sums].map(([label, sum]) => ({ label, visits: sum / periods.length }));
}

/** Looks up at most `max` of these unjudged visitors and keeps their verdicts; how many it looked up. */
export type JudgeSample = (tenant: WatchTenant, visitorIds: readonly string[], max: number) => Promise<number>;

export class WatchExplainer {
  constructor(
    private readonly observer: Pick<WatchObserver, 'judgedVisits' | 'totals'>,
    private readonly sample?: JudgeSample,
  ) {}

  /** Explains `period` against the periods the watch compares it with (the day before, when it compares with none). */
  async explain(tenant: WatchTenant, rule: WatchRule, period: WatchPeriod, timeZone: string): Promise<Explanation> {
    const compared = comparedWith(rule, period, timeZone);
    const baselines = compared.length > 0 ? compared : [{ ...period, date: shiftDay(period.date) }];
    const reports =
      rule.report !== 'visits' && REPORTS[rule.report].rowFilter && BREAKDOWNS.includes(rule.report)
        ? [rule.report]
        : BREAKDOWNS;
    const judgedSince = period.dueAt - VERDICTS_KEPT_MS;
    // The watched visits: the watch's filters apply to the visits too.
    const visitsOf = (p: Pick<WatchPeriod, 'date' | 'hour'>) =>
      this.observer.judgedVisits(tenant, p, timeZone, rule.filters);
    let current = await visitsOf(period);
    let sampled = false;
    const unjudged = [...new Set(current.visits.map((v) => v.visitor_id))].filter(
      (id): id is string => typeof id === 'string' && !current.checked.has(id),
    );
    if (current.scanOn && unjudged.length > 0 && this.sample) {
      sampled = (await this.sample(tenant, unjudged, SAMPLE_LOOKUPS)) > 0;
      if (sampled) current = await visitsOf(period);
    }
    // Baseline periods' visits are asked only where an hour's breakdown needs them, or the scan may have judged them.
    const hourly = period.hour !== undefined;
    const before: (JudgedVisits | undefined)[] = await Promise.all(
      baselines.map((p) =>
        hourly || Date.parse(`${p.date}T00:00:00Z`) + 2 * 86_400_000 >= judgedSince
          ? visitsOf(p)
          : Promise.resolve(undefined),
      ),
    );
    const lists = hourly
      ? reports.map((r) =>
          movers(tally(r, current.visits), average(before.map((b) => tally(r, b?.visits ?? []))), { report: r }),
        )
      : await Promise.all(reports.map((r) => this.dayMovers(tenant, rule, r, period, baselines)));
    const moved = acrossReports(lists.filter((l): l is Mover[] => l !== undefined));
    const now = judgedCounts(current);
    const judgedBefore = before.filter((b): b is JudgedVisits => b !== undefined).map(judgedCounts);
    // The baseline's sums over its periods (the usual is their average); periods not read have no visit judged.
    const baseline: PeriodJudgement =
      judgedBefore.length === baselines.length
        ? {
            visits: sum(judgedBefore.map((b) => b.visits)),
            judgedVisits: sum(judgedBefore.map((b) => b.judgedVisits)),
            flaggedVisits: sum(judgedBefore.map((b) => b.flaggedVisits)),
          }
        : {
            visits: sum(
              (await this.observer.totals(tenant, baselines, timeZone, rule)) ?? baselines.map(() => now.visits),
            ),
            judgedVisits: 0,
            flaggedVisits: 0,
          };
    const visitors = new Set(current.visits.map((v) => v.visitor_id).filter(Boolean));
    const judgedVisitors = [...visitors].filter((id) => current.checked.has(id!)).length;
    const who = verdict({
      current: now,
      baseline,
      baselinePeriods: baselines.length,
      scanOn: current.scanOn,
      visitors: visitors.size,
      judgedVisitors,
      sampled,
      periodName: hourly ? 'this hour' : 'this day',
    });
    const change = now.visits - baseline.visits / baselines.length;
    return {
      period: period.key,
      text: explanationText(moved, who, Math.round(change), undefined, againstWords(rule, period)).text,
      verdict: who.verdict,
      moved,
      who: { text: who.text, shares: who.shares },
      ...mostVisits(current),
    };
  }

  /** A day's movers of one report: its rows that day against each baseline day's, averaged. */
  private async dayMovers(
    tenant: WatchTenant,
    rule: WatchRule,
    report: ReportId,
    period: WatchPeriod,
    baselines: readonly Pick<WatchPeriod, 'date'>[],
  ) {
    const def = REPORTS[report];
    const rows = async (date: string): Promise<Entry[]> => {
      const answer = await tenant.fetcher.report(report, {
        startDate: date,
        endDate: date,
        filterGroups: rule.filters,
        page: 1,
        limit: ROWS,
        sort: { key: def.countField!, value: -1 },
      });
      return answer.map((r) => {
        const name = textOf(fieldOf(r, def.rowFilter!.rowField));
        return { label: report === 'pages' ? shortUrl(name) : name, visits: Number(fieldOf(r, def.countField!)) || 0 };
      });
    };
    const answers = await Promise.all([rows(period.date), ...baselines.map((b) => rows(b.date))]);
    if (answers.some((a) => a.length >= ROWS)) return undefined;
    const [now, ...before] = answers;
    return movers(now, average(before), { report });
  }
}

/** What the movers are measured against, in words: the watch's own baseline periods. */
function againstWords(rule: WatchRule, period: WatchPeriod): string {
  const unit = period.hour === undefined ? 'day' : 'hour';
  const c = rule.condition;
  if (againstUsual(c))
    return `the average of the same ${period.hour === undefined ? 'weekday' : 'hour'} in the ${USUAL_WEEKS} weeks before`;
  if (c.kind === 'change') return c.against === 'last_week' ? `the same ${unit} last week` : `the ${unit} before`;
  return period.hour === undefined ? 'the day before' : 'the same hour the day before';
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function shiftDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The flagged visitors of the period, most visits first (the first FLAGGED_LISTED), and how many there were. */
function mostVisits(j: JudgedVisits): { flagged: string[]; flaggedCount: number } {
  const counts = new Map<string, number>();
  for (const v of j.visits)
    if (v.visitor_id && j.flagged.has(v.visitor_id)) counts.set(v.visitor_id, (counts.get(v.visitor_id) ?? 0) + 1);
  const flagged = [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, FLAGGED_LISTED)
    .map(([id]) => id);
  return { flagged, flaggedCount: counts.size };
}
