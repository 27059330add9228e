import { teamOf, type Routes } from '../../platform/slack/routes.js';
import { infoMessage, problemMessage } from '../../platform/slack/kit/messages.js';
import { ACTIONS, connectModal, CONNECT_VIEW } from './blocks.js';
import type { WorkspaceService } from './service.js';

export interface WorkspaceListening {
  service: WorkspaceService;
  /** Whether `user` may connect, replace or purge in `team`: an admin or owner of the workspace, or who installed Lookout. */
  mayAdminister(team: string, user: string): Promise<boolean>;
  defaultUrl: string;
  /** The person's Home shows the change. */
  changed(user: string): void;
}

const REFUSED = problemMessage(
  'Only an admin or owner of this workspace, or whoever installed Lookout, can change its analytics connection.',
  'Ask one of them.',
);

export function registerWorkspace(routes: Routes, w: WorkspaceListening): void {
  routes.handle(ACTIONS.connect, async (args, { team, tell }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return tell(REFUSED);
    await args.client.views.open({ trigger_id: args.body.trigger_id, view: connectModal(w.defaultUrl) });
  });

  routes.view(CONNECT_VIEW, async ({ ack, body, view }) => {
    const team = teamOf(body);
    const user = body.user.id;
    const values = view.state.values;
    const url = values.url?.value?.value ?? '';
    const key = values.key?.value?.value ?? '';
    if (!(await w.mayAdminister(team, user)))
      return void (await ack({ response_action: 'errors', errors: { key: REFUSED.text.slice(0, 300) } }));
    const enterprise = (body as { enterprise?: { id?: string } | null }).enterprise?.id;
    const checked = await w.service.connect(team, enterprise, user, url, key);
    if (!checked.ok)
      return void (await ack({
        response_action: 'errors',
        errors: { [checked.field]: checked.problem.slice(0, 300) },
      }));
    await ack();
    w.changed(user);
  });

  routes.handle(ACTIONS.disconnect, async (args, { team, tell }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return tell(REFUSED);
    const removed = await w.service.disconnect(team, args.body.user.id);
    w.changed(args.body.user.id);
    return tell(infoMessage(removed ? 'Analytics disconnected: its key is deleted.' : 'Analytics was not connected.'));
  });

  routes.handle(ACTIONS.purge, async (args, { team, tell }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return tell(REFUSED);
    const removed = await w.service.purge(team, { keepInstallation: true });
    w.changed(args.body.user.id);
    return tell(
      infoMessage(
        `Deleted everything Lookout kept of this workspace (${removed} ${removed === 1 ? 'record' : 'records'}).`,
      ),
    );
  });

  routes.event('app_uninstalled', async ({ body }) => w.service.left(teamOf(body), 'app_uninstalled'));
  routes.event('tokens_revoked', async ({ body, event }) => {
    const bots = (event as { tokens?: { bot?: string[] } }).tokens?.bot ?? [];
    if (bots.length > 0) await w.service.left(teamOf(body), 'tokens_revoked');
  });
}
