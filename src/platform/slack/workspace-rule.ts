/**
 * One workspace per request, from what Slack signs, checked once before any listener for every kind of
 * request (command, click, form, options, event):
 * - a request whose fields naming its workspace and organisation disagree (tenancy/team.ts claimOf) is refused:
 *   Bolt would pick the token by one field and Lookout the workspace by another;
 * - a request saying an organisation's install serves a workspace Lookout knows outside that organisation
 *   (its own install names another, or none) is refused;
 * - a request from a workspace that has not installed Lookout, or removed it, is told so;
 * - a workspace served through its organisation's install is recorded under it (installations.ts servedByOrg).
 * Each is answered where its person can see it: a command's or click's response_url, a form's error.
 */
import type { AllMiddlewareArgs, AnyMiddlewareArgs, Authorize, Middleware } from '@slack/bolt';
import type { InstallProvider } from '@slack/oauth';
import { growingLru } from '../lru.js';
import type { Logger } from '../log.js';
import { claimOf, teamOf } from '../tenancy/team.js';
import { NotInstalledError } from './installations.js';
import { LIMITS, plainText } from './kit/limits.js';
import { problemMessage } from './kit/messages.js';
import { requestContext } from './request-context.js';

/** Where `authorize` leaves, in the request's context, why the workspace cannot be served. */
const STANDING = 'lookoutStanding';
type Standing = 'not_installed' | 'unavailable';

/** What the person is told, plainly: what is wrong, and what to do. */
const SAID = {
  refused: [
    'Lookout did not act on this: the request names workspaces that do not belong together.',
    'Try again from Slack; if it keeps happening, tell whoever runs Lookout.',
  ],
  not_installed: [
    'Lookout is not installed in this workspace (or it was removed), so it cannot answer here.',
    'A workspace admin can install it again from Lookout’s install page; whoever runs Lookout has the link.',
  ],
  unavailable: [
    'Lookout could not check its installation in this workspace just now.',
    'Try again in a minute; if it keeps happening, tell whoever runs Lookout.',
  ],
} as const satisfies Record<string, readonly [string, string]>;

/** The organisations' records the rule reads and writes (the installations). */
export interface OrgRecords {
  outsideOrg(team: string, enterprise: string): Promise<boolean>;
  servedByOrg(team: string, enterprise: string): Promise<void>;
}

/**
 * Bolt's `authorize` over the installations, for a distributed app: a workspace with no installation is
 * marked in the context, not thrown (Bolt would ack with nothing and log an unhandled error), so the rule
 * below answers it.
 */
export function authorizeInstalled(installer: InstallProvider, log: Logger): Authorize<boolean> {
  return async (source) => {
    try {
      return await installer.authorize(source);
    } catch (error) {
      const original = (error as { original?: unknown }).original ?? error;
      if (original instanceof NotInstalledError) return { [STANDING]: 'not_installed' satisfies Standing };
      log.error(
        { team: source.teamId, err: original instanceof Error ? original.message : String(original) },
        'could not find the installation a request needs',
      );
      return { [STANDING]: 'unavailable' satisfies Standing };
    }
  };
}

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

/** The rule, as Bolt's first global middleware after the request's logger; `orgs` in a distributed app. */
export function workspaceRule(o: { orgs?: OrgRecords } = {}): Middleware<AnyMiddlewareArgs> {
  // Workspaces recorded under their organisation by this process: not again on every request, but again within
  // minutes of an uninstall (on any replica) that ended the link.
  const recorded = growingLru<string, string>(10_000, { ttl: 10 * 60_000 });
  return async (args) => {
    const { body, context } = args;
    const { log } = requestContext(context);
    const claim = claimOf(body);
    if ('problem' in claim) {
      log.warn({ team: teamOf(body), reason: claim.problem }, 'request refused: its workspace fields disagree');
      return answer(args, 'refused', log);
    }
    const { team, enterprise, orgWide } = claim;
    const orgs = orgWide && enterprise ? o.orgs : undefined;
    try {
      if (orgs && (await orgs.outsideOrg(team, enterprise!))) {
        log.warn(
          { team, enterprise, reason: 'the workspace’s own install names another organisation, or none' },
          'request refused: it says an organisation’s install serves a workspace outside it',
        );
        return answer(args, 'refused', log);
      }
    } catch (error) {
      log.error(
        { team, err: error instanceof Error ? error.message : String(error) },
        'could not check a request’s organisation',
      );
      return answer(args, 'unavailable', log);
    }
    const standing = context[STANDING] as Standing | undefined;
    if (standing) {
      if (standing === 'not_installed')
        log.info({ team, enterprise }, 'a request from a workspace Lookout is not installed in');
      return answer(args, standing, log);
    }
    if (orgs && recorded.get(team) !== enterprise) {
      try {
        await orgs.servedByOrg(team, enterprise!);
        recorded.set(team, enterprise);
      } catch (error) {
        // Recorded with the workspace's next request; this one is answered either way.
        log.warn(
          { team, err: error instanceof Error ? error.message : String(error) },
          'could not record that a workspace is served by its organisation',
        );
      }
    }
    await args.next();
  };
}

interface Answerable {
  type?: string;
  response_url?: unknown;
  view?: { blocks?: { type?: string; block_id?: string }[] };
}

/** Answers a request no listener will see, where its person can see it; a failure to is only logged. */
async function answer(args: Args, why: keyof typeof SAID, log: Logger): Promise<void> {
  const body = args.body as Answerable;
  const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
  const [text, hint] = SAID[why];
  const message = problemMessage(text, hint);
  try {
    if (body.type === 'view_submission') {
      const input = body.view?.blocks?.find((b) => b.type === 'input' && b.block_id)?.block_id;
      await ack?.(
        input
          ? { response_action: 'errors', errors: { [input]: `${text} ${hint}`.slice(0, 300) } }
          : {
              response_action: 'update',
              view: {
                type: 'modal',
                title: plainText('Lookout', LIMITS.viewTitle),
                close: plainText('Close', LIMITS.viewButton),
                blocks: message.blocks,
              },
            },
      );
      return;
    }
    await ack?.(body.type === 'block_suggestion' ? { options: [] } : undefined);
    if (typeof body.response_url === 'string')
      await requestContext(args.context).responses.reply(body.response_url, false)(message);
  } catch (error) {
    log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not tell the person why');
  }
}
