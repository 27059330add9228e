import type { ActionArgs, EventArgs, Routes } from '../../platform/slack/routes.js';
import { RowId } from '../../kernel/text.js';
import { HOME_ACTIONS } from './blocks.js';
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

/** A Home button: the change, then the Home published again (with the refusal at its top, if any). */
function homeButton(home: HomeService, action: keyof typeof HOME_ACTIONS) {
  return async (args: ActionArgs) => {
    await args.ack();
    const log = requestLog(args.context, home.log);
    const user = args.body.user.id;
    const id = RowId.safeParse(args.action.type === 'button' ? args.action.value : undefined);
    try {
      const problem = id.success ? await home.act(user, action, id.data) : 'That button is too old; open the Home tab again.';
      await args.client.views.publish({ user_id: user, view: await home.view(user, problem) });
    } catch (error) {
      log.error({ user, action, err: (error as Error).message }, 'App Home button failed');
    }
  };
}

export function registerHome(app: Routes, home: HomeService): void {
  app.event('app_home_opened', homeOpened(home));
  for (const action of Object.keys(HOME_ACTIONS) as (keyof typeof HOME_ACTIONS)[]) app.action(HOME_ACTIONS[action], homeButton(home, action));
}
