import type { Logger } from '../../platform/log.js';
import { teamOf, type Routes } from '../../platform/slack/routes.js';
import { infoMessage, problemMessage } from '../../platform/slack/kit/messages.js';
import { ACTIONS, checkingModal, connectedModal, connectModal, CONNECT_VIEW } from './blocks.js';
import type { WorkspaceService } from './service.js';

/**
 * Slack waits 3 s for a form's answer (Bolt: "you only have 3 seconds to respond",
 * https://docs.slack.dev/tools/bolt-python/concepts/acknowledge). A key tried within this
 * time is answered beside its field; a slower API gets a "checking" form that is updated
 * with the outcome once it is known.
 */
export const ANSWER_WITHIN_MS = 2_000;

export interface WorkspaceListening {
  service: WorkspaceService;
  /** Whether `user` may connect, replace or purge in `team`: an admin or owner of the workspace, or who installed Lookout. */
  mayAdminister(team: string, user: string): Promise<boolean>;
  defaultUrl: string;
  /** The person's Home shows the change. */
  changed(user: string): void;
  log: Logger;
}

const REFUSED = problemMessage(
  'Only an admin or owner of this workspace, or whoever installed Lookout, can change its analytics connection.',
  'Ask one of them.',
);

export function registerWorkspace(routes: Routes, w: WorkspaceListening): void {
  routes.handle(ACTIONS.connect, async (args, { team, reply }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return reply(REFUSED);
    await args.client.views.open({ trigger_id: args.body.trigger_id, view: connectModal(w.defaultUrl) });
  });

  routes.view(CONNECT_VIEW, async ({ ack, body, view, client }) => {
    const started = Date.now();
    const team = teamOf(body);
    const user = body.user.id;
    const values = view.state.values;
    const url = values.url?.value?.value ?? '';
    const key = values.key?.value?.value ?? '';
    if (!(await w.mayAdminister(team, user)))
      return void (await ack({ response_action: 'errors', errors: { key: REFUSED.text.slice(0, 300) } }));
    const enterprise = (body as { enterprise?: { id?: string } | null }).enterprise?.id;
    const { early, later } = await w.service.connectWithin(
      ANSWER_WITHIN_MS - (Date.now() - started),
      team,
      enterprise,
      user,
      url,
      key,
    );
    if (early) {
      if (!early.ok)
        return void (await ack({ response_action: 'errors', errors: { [early.field]: early.problem.slice(0, 300) } }));
      await ack();
      return w.changed(user);
    }
    await ack({ response_action: 'update', view: checkingModal() });
    const checked = await later;
    if (checked.ok) w.changed(user);
    const shown = checked.ok
      ? connectedModal(url)
      : connectModal(w.defaultUrl, { url, field: checked.field, problem: checked.problem });
    await client.views.update({ view_id: view.id, view: shown }).catch((error: unknown) => {
      w.log.warn(
        { team, err: error instanceof Error ? error.message : String(error) },
        'could not show the outcome of a connection on its form (closed?)',
      );
    });
  });

  routes.handle(ACTIONS.disconnect, async (args, { team, reply }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return reply(REFUSED);
    const removed = await w.service.disconnect(team, args.body.user.id);
    w.changed(args.body.user.id);
    return reply(infoMessage(removed ? 'Analytics disconnected: its key is deleted.' : 'Analytics was not connected.'));
  });

  routes.handle(ACTIONS.purge, async (args, { team, reply }) => {
    if (!(await w.mayAdminister(team, args.body.user.id))) return reply(REFUSED);
    const removed = await w.service.purge(team, { keepInstallation: true });
    w.changed(args.body.user.id);
    return reply(
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
