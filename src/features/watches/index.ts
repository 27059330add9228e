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

export type { WatchEvaluator } from './evaluator.js';
export type { WatchService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    watches: { service: WatchService; evaluator: WatchEvaluator };
  }
}

type WatchNeeds = 'reports' | 'trends' | 'threats' | 'visitor';

/** `/traffic watch …`: metric watches, evaluated as each period is final, and their alerts. */
export const watches: LookoutFeature<'watches', WatchNeeds, { watches: WatchRepo }> = {
  name: 'watches',
  traffic: {
    words: ['watch', 'watches'],
    usage: '<metric> [report filters…] <condition> [every hour|day] [#channel]',
    help: WATCH_HELP,
  },
  migrations: new URL('./migrations/', import.meta.url),
  needs: ['reports', 'trends', 'threats', 'visitor'],
  subjects: WATCH_SUBJECTS,
  repos: (db: Queryable) => ({ watches: new WatchRepo(db) }),
  plug(ctx, { reports, trends, threats, visitor }, repos) {
    const { platform, settings } = ctx;
    const { now, apiDays, demo, limits } = settings;
    const log = logOf(ctx, 'watches');
    const changed = platform.changes.changed;
    const evaluations = platform.metrics.counter({
      name: 'lookout_watch_evaluations_total',
      help: 'Watch evaluations by outcome: breach, update, recover, ok, unknown (the API failed or there was nothing to compare with), muted',
      labelNames: ['outcome'],
    });
    const explanations = platform.metrics.counter({
      name: 'lookout_watch_explanations_total',
      help: 'Watch alerts explained (what moved, who moved it), by outcome: explained, failed (the alert says it could not be told), superseded (a later period was evaluated first)',
      labelNames: ['outcome'],
    });
    const service = new WatchService({
      repo: repos.watches,
      tenantOf: (team) => platform.tenants.of(team),
      now,
      defaultTimezone: settings.timeZone,
      apiZone: apiDays.timeZone,
      limits: { perChannel: limits.digestsPerChannel, perUser: limits.digestsPerUser },
      demo,
      changed,
      log,
    });
    const observer = new WatchObserver({ trends, flagged: threats.verdicts, apiDays, log });
    const evaluator = new WatchEvaluator({
      db: platform.repos.db,
      tenants: platform.tenants,
      observer,
      explainer: new WatchExplainer(observer, (tenant, ids, max) => threats.scan.judgeSample(tenant, ids, max)),
      explained: (outcome) => explanations.inc({ outcome }),
      trends,
      apiDays,
      owner: settings.owner,
      now,
      log,
      queued: platform.queued,
      changed,
      demo,
      ...settings.watches,
      observe: (outcome) => evaluations.inc({ outcome }),
    });
    return {
      gives: { service, evaluator },
      traffic: watchCommand(service),
      register: (routes) => registerWatches(routes, service, reports, { flagged: threats.verdicts, cards: visitor }),
      jobs: [evaluator],
    };
  },
};
