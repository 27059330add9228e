import type { EventArgs, Routes } from '../../platform/slack/routes.js';
import { requestLog } from '../../platform/slack/respond.js';
import type { HomeService } from './service.js';

/** `app_home_opened` on the Home tab: the person's Home is published afresh. */
function homeOpened(home: HomeService) {
  return async (args: EventArgs) => {
    const event = args.event as { type: string; user?: string; tab?: string };
    if (event.tab !== undefined && event.tab !== 'home') return;
    if (!event.user) return;
    const log = requestLog(args.context, home.log);
    try {
      await args.client.views.publish({ user_id: event.user, view: await home.view(event.user) });
    } catch (error) {
      log.error({ user: event.user, err: (error as Error).message }, 'App Home not published');
    }
  };
}

export function registerHome(app: Routes, home: HomeService): void {
  app.event('app_home_opened', homeOpened(home));
}
