import type { WebClient } from '@slack/web-api';
import {
  buttonValue,
  type ActionArgs,
  type EventArgs,
  type Handling,
  type Routes,
} from '../../platform/slack/routes.js';
import { teamOf } from '../../platform/tenancy/team.js';
import { RowId } from '../../kernel/text.js';
import { slackReason } from '../../platform/slack/poster.js';
import { HOME_ACTIONS, HOME_START, type HomeRowAction } from './blocks.js';
import type { Acted, HomeService, Notice } from './service.js';

/** Publishes the person's Home in workspace `team` as it stands (with `notice` at its top) and records what they now see. */
async function publish(
  home: HomeService,
  client: WebClient,
  team: string,
  user: string,
  notice?: Notice,
): Promise<void> {
  const { view, hash } = await home.render(team, user, notice);
  await client.views.publish({ user_id: user, view });
  await home.shown(team, user, hash);
}

/** `app_home_opened` on the Home tab: the person's Home is published afresh. */
function homeOpened(home: HomeService) {
  return async (args: EventArgs) => {
    const event = args.event as { type: string; user?: string; tab?: string };
    if (event.tab !== undefined && event.tab !== 'home') return;
    if (!event.user) return;
    try {
      await publish(home, args.client, teamOf(args.body), event.user);
    } catch (error) {
      args.context.log.error({ user: event.user, err: (error as Error).message }, 'App Home not published');
    }
  };
}

/** A Home button: the change (the service's rules), then the Home published again with what came of it at its top (a failure is logged). */
function homeButton(home: HomeService, run: (args: ActionArgs, user: string, team: string) => Promise<Acted>) {
  return async (args: ActionArgs, { team }: Handling) => {
    const user = args.body.user.id;
    const acted = await run(args, user, team);
    let notice = acted.notice;
    if (acted.preview) {
      const { channelId, message, instead } = acted.preview;
      notice = await args.client.chat
        .postEphemeral({ channel: channelId, user, text: message.text, blocks: message.blocks })
        .then(
          () => notice,
          (error: unknown) => ({
            ok: false,
            text: `Slack would not show the preview in that channel (${slackReason(error)}). Invite Lookout there, or use ${instead} in it.`,
          }),
        );
    }
    await publish(home, args.client, team, user, notice);
  };
}

const TOO_OLD: Acted = { notice: { ok: false, text: 'That button is too old; open the Home tab again.' } };

/** "New digest": the digest form, as `/traffic digest add` with nothing after it opens. */
function newDigest(home: HomeService) {
  return async (args: ActionArgs) =>
    args.client.views.open({
      trigger_id: args.body.trigger_id,
      view: await home.newDigestForm(teamOf(args.body), args.body.user.id),
    });
}

export function registerHome(routes: Routes, home: HomeService): void {
  routes.event('app_home_opened', homeOpened(home));
  // Every feature's button on the Home (Disconnect, a refusal) is answered on the Home, as its own buttons are.
  routes.answerOnHome((args, team, message) => publish(home, args.client, team, args.body.user.id, { message }));
  for (const action of Object.keys(HOME_ACTIONS) as HomeRowAction[]) {
    routes.handle(
      HOME_ACTIONS[action],
      homeButton(home, (args, user, team) => {
        const id = RowId.safeParse(buttonValue(args));
        return id.success ? home.act(team, user, action, id.data) : Promise.resolve(TOO_OLD);
      }),
      'none',
    );
  }
  routes.handle(HOME_START.newDigest, newDigest(home), 'none');
  const selected = (args: ActionArgs) =>
    args.action.type === 'channels_select' ? args.action.selected_channel : undefined;
  routes.handle(
    HOME_START.alertsOn,
    homeButton(home, (args, user, team) => home.alertsIn(user, team, selected(args), true)),
    'none',
  );
  routes.handle(
    HOME_START.alertsOff,
    homeButton(home, (args, user, team) => home.alertsIn(user, team, buttonValue(args), false)),
    'none',
  );
  routes.handle(
    HOME_START.muteAlert,
    homeButton(home, (args, user, team) => home.muteAlert(team, user, buttonValue(args), true)),
    'none',
  );
  routes.handle(
    HOME_START.unmuteAlert,
    homeButton(home, (args, user, team) => home.muteAlert(team, user, buttonValue(args), false)),
    'none',
  );
}
