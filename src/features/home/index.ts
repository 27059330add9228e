import { logOf, type LookoutFeature } from '../../context.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Queryable } from '../../platform/store/db.js';
import { HOME, HOME_PUBLISH_DEADLINE_MS } from './deliveries.js';
import { registerHome } from './listeners.js';
import { HomeRefresh } from './refresh.js';
import { HomeViewRepo } from './repo.js';
import { HomeService } from './service.js';
import { homeSettings } from './settings.js';
import { setupTool } from './tools.js';

export type { HomeRefresh } from './refresh.js';

declare module '../../platform/feature.js' {
  interface Provided {
    home: HomeRefresh;
  }
}

/**
 * App Home: what a person set up and what needs a look. Open Home tabs are published
 * again after a change (the change bus) or a delivery's outcome.
 */
export const home: LookoutFeature<
  'home',
  'digests' | 'watches' | 'alerts' | 'workspace' | 'agents',
  { homeViews: HomeViewRepo },
  ReturnType<typeof homeSettings>
> = {
  name: 'home',
  migrations: new URL('./migrations/', import.meta.url),
  unowned: ['home_views'],
  needs: ['digests', 'watches', 'alerts', 'workspace', 'agents'],
  get settings() {
    return homeSettings();
  },
  subjects: [HOME],
  repos: (db: Queryable) => ({ homeViews: new HomeViewRepo(db) }),
  plug(ctx, { digests, watches, alerts, workspace, agents }, repos, settings) {
    const { platform } = ctx;
    const log = logOf(ctx, 'home');
    const { deliveries } = platform.repos;
    const service = new HomeService({
      digests: digests.service,
      watches: watches.service,
      alerts: alerts.service,
      deliveries,
      subjects: platform.subjects,
      views: repos.homeViews,
      queued: platform.queued,
      access: (team) => platform.tenants.access(team),
      tenantOf: (team) => platform.tenants.of(team),
      top: (team, user) => workspace.homeSection(team, user),
      sections: (team, user) => agents.homeSection(team, user),
      settings: {
        operator: !platform.tenants.distributed,
        scrapingScoreThreshold: ctx.settings.SCRAPING_SCORE_THRESHOLD,
        digestMinIntervalMs: digests.limits.minIntervalMs,
        digestsPerChannel: digests.limits.perChannel,
        digestsPerUser: digests.limits.perUser,
        watchesPerChannel: watches.limits.perChannel,
        watchesPerUser: watches.limits.perUser,
        userRequests: ctx.settings.USER_RATE_LIMIT,
        userWindowMs: ctx.settings.USER_RATE_WINDOW,
      },
      now: platform.now,
      timeZone: ctx.settings.DEFAULT_TIMEZONE,
      demo: ctx.demo,
      log,
    });
    const refreshes = platform.metrics.counter({
      name: 'lookout_home_refreshes_total',
      help: 'Open App Home tabs worked out again after a change: queued (published through the outbox), unchanged (not published), failed (retried in 5 s)',
      labelNames: ['outcome'],
    });
    const refresh = new HomeRefresh({
      repo: repos.homeViews,
      render: (team, user) => service.render(team, user),
      ownersIn: (team, channels) => service.ownersIn(team, channels),
      enqueue: async (team, user, view) => {
        const message = { text: 'Lookout Home', blocks: view.blocks as SlackMessage['blocks'] };
        await deliveries.enqueueLatest({
          team,
          subject: HOME,
          payload: { user },
          channelId: user,
          message,
          expiresInMs: HOME_PUBLISH_DEADLINE_MS,
        });
        platform.queued();
      },
      log,
      observe: (outcome) => refreshes.inc({ outcome }),
      debounceMs: settings.HOME_REFRESH_DELAY,
      burst: settings.HOME_REFRESH_BURST,
      perMinute: settings.HOME_REFRESHES_PER_MINUTE,
    });
    platform.changes.listen((scope) => refresh.changed(scope));
    // A delivery that went out, or failed, shows on the Homes of those who see it (security details: any of them).
    platform.worker.onOutcome((delivery, subject) => {
      if (subject !== HOME)
        refresh.changed(subject.sensitive ? 'everyone' : { team: delivery.team, channels: [delivery.channelId] });
    });
    return {
      gives: refresh,
      tools: [setupTool(service)],
      register: (routes) => registerHome(routes, service),
      stop: () => refresh.stop(),
    };
  },
};
