import { buttonValue, teamOf, type Routes } from '../../platform/slack/routes.js';
import { AGENT_ACTIONS, NAME_ACTION, NAME_BLOCK, nameModal, TOKEN_VIEW, type AgentHome } from './home.js';

/**
 * The Home's "Connect an AI agent" section: "Create a token" opens the form; its submission
 * makes the token and updates the form to show it, once; Revoke is answered on the Home.
 * `changed` has the person's Home show the new token in its list.
 */
export function registerAgentHome(routes: Routes, agents: AgentHome, changed: (user: string) => void): void {
  routes.handle(
    AGENT_ACTIONS.create,
    (args) => args.client.views.open({ trigger_id: args.body.trigger_id, view: nameModal() }),
    'none',
  );

  routes.view(TOKEN_VIEW, async ({ ack, body, view }) => {
    const user = body.user.id;
    const typed = view.state.values[NAME_BLOCK]?.[NAME_ACTION]?.value ?? '';
    const created = await agents.create(teamOf(body), user, typed);
    if (!created.ok) return void (await ack({ response_action: 'errors', errors: { [NAME_BLOCK]: created.problem } }));
    await ack({ response_action: 'update', view: created.view });
    changed(user);
  });

  routes.handle(AGENT_ACTIONS.revoke, async (args, { team, reply }) =>
    reply(await agents.revoke(team, args.body.user.id, buttonValue(args))),
  );
}
