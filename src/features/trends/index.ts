import { answering, logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import { registerTrends, trendCommand } from './listeners.js';
import { TREND_HELP } from './parse.js';
import { TrendRepo } from './repo.js';
import { TrendService } from './service.js';
import { trendSettings } from './settings.js';

export type { TrendService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    trends: TrendService;
  }
}

/** `/traffic trend …`: a figure over time, its periods kept in the store once final. */
export const trends: LookoutFeature<'trends', 'reports', { trends: TrendRepo }, typeof trendSettings> = {
  name: 'trends',
  needs: ['reports'],
  settings: trendSettings,
  repos: (db: Queryable) => ({ trends: new TrendRepo(db) }),
  plug(ctx, { reports }, repos, settings) {
    const { metrics } = ctx.platform;
    const service = new TrendService({
      ...answering(ctx),
      repo: repos.trends,
      refs: reports.refs,
      maxFetch: settings.TREND_MAX_FETCH,
      log: logOf(ctx, 'trends'),
      observe: (source, n) => n > 0 && metrics.trendPeriods.inc({ source }, n),
      observeRecheck: (changed, n) => metrics.trendRechecks.inc({ changed: String(changed) }, n),
    });
    return {
      gives: service,
      subcommands: [{ words: ['trend', 'trends'], run: trendCommand(service, reports), help: TREND_HELP }],
      register: (routes) => registerTrends(routes, service, reports),
    };
  },
};
