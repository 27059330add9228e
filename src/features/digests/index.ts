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
import { DigestService } from './service.js';

export type { DigestScheduler } from './scheduler.js';
export type { DigestService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    digests: { service: DigestService; scheduler: DigestScheduler };
  }
}

/** `/traffic digest …`: reports posted on a schedule, with their form and buttons. */
export const digests: LookoutFeature<
  'digests',
  'trends' | 'alerts' | 'threats',
  { digests: DigestRepo; runs: DigestRunRepo }
> = {
  name: 'digests',
  traffic: { words: ['digest', 'digests'], usage: 'add|list|remove|pause|resume|preview …', help: DIGEST_HELP },
  migrations: new URL('./migrations/', import.meta.url),
  unowned: ['digest_runs'],
  needs: ['trends', 'alerts', 'threats'],
  subjects: [DIGEST],
  repos: (db: Queryable) => ({ digests: new DigestRepo(db), runs: new DigestRunRepo(db) }),
  plug(ctx, { trends, alerts, threats }, repos) {
    const { platform, settings } = ctx;
    const { now, owner, limits } = settings;
    const log = logOf(ctx, 'digests');
    const content = new DigestContent({
      trends,
      flagged: {
        seen: (tenant, from, to) => alerts.service.seen(tenant, from, to),
        judged: (tenant, ids) => threats.verdicts.judged(tenant, ids),
      },
      apiZone: settings.apiDays.timeZone,
      demo: settings.demo,
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
      reloadMs: settings.digestReloadMs,
      heartbeatMs: settings.deliveries.heartbeatMs,
    });
    const service = new DigestService({
      repo: repos.digests,
      runs: repos.runs,
      deliveries: platform.repos.deliveries,
      content,
      schedule: scheduler,
      tenantOf: (team) => platform.tenants.of(team),
      now,
      defaultTimezone: settings.timeZone,
      limits: {
        minIntervalMs: limits.digestMinIntervalMs,
        perChannel: limits.digestsPerChannel,
        perUser: limits.digestsPerUser,
      },
      quota: platform.quota,
      changed: platform.changes.changed,
      log,
    });
    return {
      gives: { service, scheduler },
      traffic: digestCommand(service),
      register: (routes) => registerDigests(routes, service),
      jobs: [scheduler],
    };
  },
};
