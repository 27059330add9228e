import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import type { Prune } from '../../platform/store/housekeeping.js';
import { WATCH_SUBJECTS } from './deliveries.js';
import { WatchEvaluator } from './evaluator.js';
import { registerWatches, watchCommand } from './listeners.js';
import { WatchExplainer } from './explainer.js';
import { WatchObserver } from './observe.js';
import { WatchPreviewer } from './previewer.js';
import { WATCH_HELP } from './parse.js';
import { ALERT_WINDOW_DAYS } from './blocks.js';
import { WatchRepo } from './repo.js';
import { WatchService } from './service.js';
import { watchSettings } from './settings.js';
import { whyMovedTool } from './tools.js';

export type { WatchEvaluator } from './evaluator.js';
export type { WatchService } from './service.js';
export type { WatchPreviewer } from './previewer.js';

declare module '../../platform/feature.js' {
  interface Provided {
    watches: {
      service: WatchService;
      evaluator: WatchEvaluator;
      /** How a rule would have behaved over the past weeks. */
      previewer: WatchPreviewer;
      /** WATCHES_PER_CHANNEL and WATCHES_PER_USER, for the Home to show. */
      limits: { perChannel: number; perUser: number };
    };
  }
}

type WatchNeeds = 'reports' | 'trends' | 'threats' | 'visitor';

const DAY = 86_400_000;

/** Watch alerts a week past the days they are counted over. */
export function watchPrunes(repos: { watches: WatchRepo }): Prune[] {
  return [
    {
      name: 'watch_alerts',
      olderThanMs: (ALERT_WINDOW_DAYS + 7) * DAY,
      prune: (t) => repos.watches.pruneAlerts(t),
    },
  ];
}

/** `/traffic watch …`: metric watches, evaluated as each period is final, and their alerts. */
export const watches: LookoutFeature<
  'watches',
  WatchNeeds,
  { watches: WatchRepo },
  ReturnType<typeof watchSettings>
> = {
  name: 'watches',
  traffic: {
    words: ['watch', 'watches'],
    usage: '<metric> [report filters…] <condition> [every hour|day] [#channel]',
    help: WATCH_HELP,
  },
  migrations: new URL('./migrations/', import.meta.url),
  needs: ['reports', 'trends', 'threats', 'visitor'],
  get settings() {
    return watchSettings();
  },
  subjects: WATCH_SUBJECTS,
  repos: (db: Queryable) => ({ watches: new WatchRepo(db) }),
  plug(ctx, { reports, trends, threats, visitor }, repos, settings) {
    const { platform, apiDays, demo } = ctx;
    const { now } = platform;
    const log = logOf(ctx, 'watches');
    const changed = platform.changes.changed;
    const limits = { perChannel: settings.WATCHES_PER_CHANNEL, perUser: settings.WATCHES_PER_USER };
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
    const observer = new WatchObserver({ trends, flagged: threats.verdicts, apiDays, log });
    const previewer = new WatchPreviewer({ observer, trends, quota: platform.quota, apiDays, now, log });
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
      previewer,
    });
    const explainer = new WatchExplainer(observer, (tenant, ids, max) => threats.scan.judgeSample(tenant, ids, max));
    const evaluator = new WatchEvaluator({
      db: platform.repos.db,
      tenants: platform.tenants,
      observer,
      explainer,
      explained: (outcome) => explanations.inc({ outcome }),
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
      observe: (outcome) => evaluations.inc({ outcome }),
    });
    return {
      gives: { service, evaluator, previewer, limits },
      traffic: watchCommand(service, previewer),
      tools: [
        whyMovedTool({
          watches: service,
          explainer,
          reports,
          quota: platform.quota,
          apiDays,
          timeZone: ctx.settings.DEFAULT_TIMEZONE,
          now,
          demo,
        }),
      ],
      register: (routes) => registerWatches(routes, service, reports, { flagged: threats.verdicts, cards: visitor }),
      jobs: [evaluator],
      prunes: watchPrunes(repos),
    };
  },
};
