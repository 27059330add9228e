/**
 * A rule's preview: how it would have behaved over the past weeks (preview.ts), observed by
 * the evaluator's own observer from the trend cache (periods kept once final), charged to
 * the person's API quota, with a progress note while it fetches what is not kept yet.
 */
import type { ApiDays } from '../../kernel/trend.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota, type Quota } from '../../platform/quota.js';
import { problemMessage, type Result } from '../../platform/slack/kit/messages.js';
import type { TrendService } from '../trends/index.js';
import { canLookBack, trendAsk, type WatchObserver, type WatchTenant } from './observe.js';
import type { WatchRule } from './plan.js';
import { PREVIEW_DAYS, previewPeriods, replay, stricterRule, type Replayed } from './preview.js';

export interface Preview {
  rule: WatchRule;
  /** The zone its hours are the watch's (its owner's). */
  timeZone: string;
  days: number;
  replayed: Replayed[];
  /** A stricter rule, when this one would have alerted too often, and how often it would have. */
  stricter?: { rule: WatchRule; breaches: number };
}

export interface PreviewerDeps {
  observer: Pick<WatchObserver, 'history'>;
  trends: Pick<TrendService, 'cost'>;
  quota: Quota;
  apiDays: ApiDays;
  now: () => Date;
  log: Logger;
}

export interface PreviewOptions {
  /** Days to look back (PREVIEW_DAYS by default). */
  days?: number;
  /** Told, before fetching, that periods not kept yet are fetched. */
  progress?: (text: string) => Promise<void>;
}

export class WatchPreviewer {
  constructor(private readonly deps: PreviewerDeps) {}

  /** `user`: whose quota pays for what is fetched (none: Lookout's own work). */
  async preview(
    tenant: WatchTenant,
    user: string | undefined,
    rule: WatchRule,
    timeZone: string,
    options: PreviewOptions = {},
  ): Promise<Result<Preview>> {
    if (!canLookBack(rule))
      return {
        ok: false,
        message: problemMessage(
          rule.condition.kind === 'new'
            ? 'A `new` watch compares each day’s top rows with the day before’s; it has no preview.'
            : 'This rule has no preview: the share of flagged visitors, and visits by people or by bots, come from the threat scan’s verdicts on visitors, which it keeps for hours, not weeks.',
          'Preview a rule on all visits, like `/traffic watch preview visits spike`.',
        ),
      };
    const days = options.days ?? PREVIEW_DAYS[rule.every];
    const { apiDays, now } = this.deps;
    const periods = previewPeriods(rule.every, timeZone, now(), apiDays, days);
    const { spec, buckets } = trendAsk(rule, periods, timeZone);
    const estimate = await this.deps.trends.cost(tenant, spec, buckets);
    if (estimate > 0)
      await options
        .progress?.(`Looking back over the last ${days} days: fetching the figures Lookout has not kept yet…`)
        .catch(() => undefined);
    const observed = await withinQuota(this.deps.quota, tenant.team, user, estimate, () =>
      this.deps.observer.history(tenant, rule, periods, timeZone),
    );
    if (!observed.ok) return { ok: false, message: problemMessage(observed.problem) };
    const replayed = replay(rule.condition, periods, observed.value);
    const stricter = stricterRule(rule, periods, observed.value, days);
    this.deps.log.info(
      { every: rule.every, periods: periods.length, breaches: replayed.filter((r) => r.kind === 'breach').length },
      'watch previewed',
    );
    return { ok: true, value: { rule, timeZone, days, replayed, ...(stricter ? { stricter } : {}) } };
  }
}
