import { answering, logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import { registerTrends, trendCommand } from './listeners.js';
import { TREND_HELP, TREND_USAGE } from './parse.js';
import { TrendRepo } from './repo.js';
import { TrendService } from './service.js';
import { trendSettings } from './settings.js';
import { trendTool } from './tools.js';

export type { TrendService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    trends: TrendService;
  }
}

/** `/traffic trend …`: a figure over time, its periods kept in the store once final. */
export const trends: LookoutFeature<'trends', 'reports', { trends: TrendRepo }, ReturnType<typeof trendSettings>> = {
  name: 'trends',
  traffic: { words: ['trend', 'trends'], usage: TREND_USAGE.replace('/traffic trend ', ''), help: TREND_HELP },
  migrations: new URL('./migrations/', import.meta.url),
  needs: ['reports'],
  get settings() {
    return trendSettings();
  },
  repos: (db: Queryable) => ({ trends: new TrendRepo(db) }),
  plug(ctx, { reports }, repos, settings) {
    const { metrics } = ctx.platform;
    const periods = metrics.counter({
      name: 'lookout_trend_periods_total',
      help: 'Trend periods (days, hours, weeks) by where their figures came from: store (kept), api (fetched), or store_error (kept figures could not be read or written)',
      labelNames: ['source'],
    });
    const rechecks = metrics.counter({
      name: 'lookout_trend_rechecks_total',
      help: 'Kept provisional trend periods (a first read not yet confirmed whole, a period younger than a few days, or a suspect empty answer) asked again, by whether that changed their figure',
      labelNames: ['changed'],
    });
    const service = new TrendService({
      ...answering(ctx),
      repo: repos.trends,
      refs: reports.refs,
      maxFetch: settings.TREND_MAX_FETCH,
      log: logOf(ctx, 'trends'),
      observe: (source, n) => n > 0 && periods.inc({ source }, n),
      observeRecheck: (changed, n) => rechecks.inc({ changed: String(changed) }, n),
    });
    return {
      gives: service,
      traffic: trendCommand(service, reports),
      tools: [trendTool(service, reports, ctx.apiDays.timeZone)],
      register: (routes) => registerTrends(routes, service, reports),
    };
  },
};
