import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import { DigestContent } from './content.js';
import { DIGEST } from './deliveries.js';
import { digestCommand, registerDigests } from './listeners.js';
import { DIGEST_HELP } from './parse.js';
import { digestPublisher } from './publish.js';
import { DigestRepo } from './repo.js';
import { DigestRunRepo } from './runs.js';
import { DigestScheduler } from './scheduler.js';
import { DigestService, type DigestLimits } from './service.js';
import { digestSettings } from './settings.js';

export type { DigestScheduler } from './scheduler.js';
export type { DigestService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    digests: {
      service: DigestService;
      scheduler: DigestScheduler;
      /** DIGEST_MIN_INTERVAL, DIGESTS_PER_CHANNEL and DIGESTS_PER_USER, for the Home to show. */
      limits: DigestLimits;
    };
  }
}

/** `/traffic digest …`: reports posted on a schedule, with their form and buttons. */
export const digests: LookoutFeature<
  'digests',
  'trends' | 'alerts' | 'threats',
  { digests: DigestRepo; runs: DigestRunRepo },
  ReturnType<typeof digestSettings>
> = {
  name: 'digests',
  traffic: { words: ['digest', 'digests'], usage: 'add|list|remove|pause|resume|preview …', help: DIGEST_HELP },
  migrations: new URL('./migrations/', import.meta.url),
  unowned: ['digest_runs'],
  needs: ['trends', 'alerts', 'threats'],
  get settings() {
    return digestSettings();
  },
  subjects: [DIGEST],
  repos: (db: Queryable) => ({ digests: new DigestRepo(db), runs: new DigestRunRepo(db) }),
  plug(ctx, { trends, alerts, threats }, repos, settings) {
    const { platform } = ctx;
    const { now, owner } = platform;
    const limits: DigestLimits = {
      minIntervalMs: settings.DIGEST_MIN_INTERVAL,
      perChannel: settings.DIGESTS_PER_CHANNEL,
      perUser: settings.DIGESTS_PER_USER,
    };
    const log = logOf(ctx, 'digests');
    const content = new DigestContent({
      trends,
      flagged: {
        seen: (tenant, from, to) => alerts.service.seen(tenant, from, to),
        judged: (tenant, ids) => threats.verdicts.judged(tenant, ids),
      },
      apiZone: ctx.apiDays.timeZone,
      demo: ctx.demo,
      log,
    });
    const scheduler = new DigestScheduler({
      runs: repos.runs,
      loadActive: () => repos.digests.listActive(),
      loadOne: (id) => repos.digests.get(id),
      post: digestPublisher({
        content,
        tenants: platform.tenants,
        db: platform.repos.db,
        log,
        owner,
        now,
        queued: platform.queued,
      }),
      log: logOf(ctx, 'scheduler'),
      owner,
      now,
      reloadMs: settings.DIGEST_RELOAD,
      heartbeatMs: ctx.settings.HEARTBEAT,
    });
    const service = new DigestService({
      repo: repos.digests,
      runs: repos.runs,
      deliveries: platform.repos.deliveries,
      content,
      schedule: scheduler,
      tenantOf: (team) => platform.tenants.of(team),
      now,
      defaultTimezone: ctx.settings.DEFAULT_TIMEZONE,
      limits,
      quota: platform.quota,
      changed: platform.changes.changed,
      log,
    });
    return {
      gives: { service, scheduler, limits },
      traffic: digestCommand(service),
      register: (routes) => registerDigests(routes, service),
      jobs: [scheduler],
    };
  },
};
