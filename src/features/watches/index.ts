import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import { WATCH_SUBJECTS } from './deliveries.js';
import { WatchEvaluator } from './evaluator.js';
import { registerWatches, watchCommand } from './listeners.js';
import { WatchExplainer } from './explainer.js';
import { WatchObserver } from './observe.js';
import { WATCH_HELP } from './parse.js';
import { WatchRepo } from './repo.js';
import { WatchService } from './service.js';
import { watchSettings } from './settings.js';

export type { WatchEvaluator } from './evaluator.js';
export type { WatchService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    watches: {
      service: WatchService;
      evaluator: WatchEvaluator;
      /** WATCHES_PER_CHANNEL and WATCHES_PER_USER, for the Home to show. */
      limits: { perChannel: number; perUser: number };
    };
  }
}

/** `/traffic watch …`: metric watches, evaluated as each period is final, and their alerts. */
export const watches: LookoutFeature<
  'watches',
  'reports' | 'trends' | 'alerts' | 'visitor',
  { watches: WatchRepo },
  typeof watchSettings
> = {
  name: 'watches',
  needs: ['reports', 'trends', 'alerts', 'visitor'],
  settings: watchSettings,
  subjects: WATCH_SUBJECTS,
  repos: (db: Queryable) => ({ watches: new WatchRepo(db) }),
  plug(ctx, { reports, trends, alerts, visitor }, repos, settings) {
    const { platform, apiDays, demo } = ctx;
    const { now } = platform;
    const log = logOf(ctx, 'watches');
    const changed = platform.changes.changed;
    const limits = { perChannel: settings.WATCHES_PER_CHANNEL, perUser: settings.WATCHES_PER_USER };
    const service = new WatchService({
      repo: repos.watches,
      tenantOf: (team) => platform.tenants.of(team),
      now,
      defaultTimezone: ctx.settings.DEFAULT_TIMEZONE,
      apiZone: apiDays.timeZone,
      limits,
      demo,
      changed,
      log,
    });
    const observer = new WatchObserver({ trends, flagged: alerts.service, apiDays, log });
    const evaluator = new WatchEvaluator({
      db: platform.repos.db,
      tenants: platform.tenants,
      observer,
      explainer: new WatchExplainer(observer, (tenant, ids, max) => alerts.scan.judgeSample(tenant, ids, max)),
      explained: (outcome) => platform.metrics.watchExplanations.inc({ outcome }),
      trends,
      apiDays,
      owner: platform.owner,
      now,
      log,
      queued: platform.queued,
      changed,
      demo,
      spreadMs: { hour: settings.WATCH_SPREAD_HOURLY, day: settings.WATCH_SPREAD_DAILY },
      staleMs: settings.WATCH_CLAIM_STALE,
      observe: (outcome) => platform.metrics.watchEvaluations.inc({ outcome }),
    });
    return {
      gives: { service, evaluator, limits },
      subcommands: [
        {
          words: ['watch', 'watches'],
          run: watchCommand(service),
          help: WATCH_HELP,
        },
      ],
      register: (routes) => registerWatches(routes, service, reports, { flagged: alerts.service, cards: visitor }),
      jobs: [evaluator],
    };
  },
};
