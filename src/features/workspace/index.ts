import type { KnownBlock } from '@slack/types';
import { logOf, type LookoutFeature } from '../../context.js';
import { connectionSection } from './blocks.js';
import { registerWorkspace } from './listeners.js';
import { WorkspaceService } from './service.js';
import { workspaceSettings } from './settings.js';

export { SHARED_TABLES, WorkspaceService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    workspace: {
      service: WorkspaceService;
      /** The Home's section on the workspace's analytics connection (none for one workspace: its account is configured). */
      homeSection(team: string, user: string): Promise<KnownBlock[]>;
    };
  }
}

const DAY = 86_400_000;

/**
 * A workspace's own analytics connection (App Home: connect, replace, disconnect), and its
 * leaving: `app_uninstalled` and `tokens_revoked` stop its work; its settings are purged once
 * its retention is over, or at once by its admin from the Home.
 */
export const workspace: LookoutFeature<'workspace', never, object, ReturnType<typeof workspaceSettings>> = {
  name: 'workspace',
  get settings() {
    return workspaceSettings();
  },
  plug(ctx, _needs, _repos, settings) {
    const { platform } = ctx;
    // ANALYTICS_API_URL's first: the one a connection defaults to.
    const allowedOrigins = [
      ...new Set([ctx.apiBaseUrl, ...settings.ANALYTICS_API_ALLOWED_URLS].map((u) => new URL(u).origin)),
    ];
    const log = logOf(ctx, 'workspace');
    const service = new WorkspaceService({
      db: platform.repos.db,
      tenants: platform.tenants,
      deliveries: platform.repos.deliveries,
      ...(platform.connections ? { connections: platform.connections } : {}),
      ...(platform.installations ? { installations: platform.installations } : {}),
      allowedOrigins,
      log,
    });
    const mayAdminister = async (team: string, user: string): Promise<boolean> => {
      if (!platform.tenants.distributed) return platform.tenants.access(team).isAdmin(user);
      if ((await platform.installations?.installerOf(team)) === user) return true;
      try {
        // Asked before a modal's answer too, which Slack waits 3 s for.
        const client = await platform.tenants.web(team, { timeout: 1_000 });
        const info = await client.users.info({ user });
        return info.user?.is_admin === true || info.user?.is_owner === true || info.user?.is_primary_owner === true;
      } catch (error) {
        log.warn(
          { team, err: error instanceof Error ? error.message : String(error) },
          'users.info failed: not an admin',
        );
        return false;
      }
    };
    return {
      gives: {
        service,
        async homeSection(team, user) {
          if (!platform.tenants.distributed) return [];
          return connectionSection(await service.connection(team), await mayAdminister(team, user));
        },
      },
      register: (routes) =>
        registerWorkspace(routes, {
          service,
          mayAdminister,
          defaultUrl: ctx.apiBaseUrl,
          changed: (user) => platform.changes.changed({ users: [user] }),
          log,
        }),
      prunes: [
        {
          name: 'left_workspaces',
          olderThanMs: settings.UNINSTALL_RETENTION,
          everyMs: DAY / 24,
          prune: (before) => service.purgeLeft(before),
        },
      ],
    };
  },
};
