import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import { growingLru } from '../lru.js';
import { teamOf } from '../tenancy/team.js';
import type { SlackMessage } from './kit/messages.js';
import type { RequestContext } from './request-context.js';
import { guarded, type Reply } from './respond.js';

export { teamOf };

/** Bolt's listener arguments, with what the app's middleware put on `context` (request-context.ts). */
export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs<RequestContext>;
export type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs<RequestContext>;
export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs<RequestContext>;
export type EventArgs = SlackEventMiddlewareArgs & AllMiddlewareArgs<RequestContext>;

/**
 * Where a handled request's answer goes: a new ephemeral message (`new`), in place of the
 * message clicked (`replace`, which must be ephemeral), in place only when the clicked one is
 * ephemeral (`in place if ephemeral`), or nowhere (`none`: a failure is only logged).
 */
export type Answer = 'new' | 'replace' | 'in place if ephemeral' | 'none';

/** What a handler gets once its request is acked: the request's context, and how to answer the person (ephemeral, through the response_url). */
export interface Handling extends Pick<RequestContext, 'log' | 'team' | 'tenant'> {
  reply: Reply;
}

/** Was the clicked message ephemeral? */
export function isEphemeral(body: BlockAction): boolean {
  return (body.container as { is_ephemeral?: boolean } | undefined)?.is_ephemeral === true;
}

/** The clicked button's value (undefined for any other element). */
export function buttonValue(args: ActionArgs): string | undefined {
  return args.action.type === 'button' ? args.action.value : undefined;
}

/** Answers a click on the Home tab (which has no response_url): its Home published again with `message` at its top. */
export type HomeAnswer = (args: ActionArgs, team: string, message: SlackMessage) => Promise<unknown>;

/** Told of each request's outcome, by type (command, action, view) and name. */
export type Observe = (type: string, name: string, outcome: 'ok' | 'error' | 'unknown') => void;

/** True the first time a key is seen within ttlMs, on any replica (the store); may throw while the store is down. */
export type FirstSeen = (key: string, ttlMs: number) => Promise<boolean>;

/** Slack retries an event at once, after 1 minute and after 5 minutes: its event_id is kept this long. */
export const EVENT_WINDOW_MS = 10 * 60_000;

/**
 * Where each feature registers its listeners, with Bolt's own listener arguments. Bolt runs
 * every request past every listener it has; mounted, these are four Bolt listeners (commands,
 * block actions, view submissions, events) that find the one handler by name, so a request
 * costs the same however many there are (docs/benchmarks.md), and an event is handled once
 * across replicas (the replay guard below).
 */
export class Routes {
  private readonly commands = new Map<string, (args: CommandArgs) => Promise<void>>();
  private readonly actions = new Map<string, (args: ActionArgs) => Promise<void>>();
  private readonly actionPatterns: [RegExp, (args: ActionArgs) => Promise<void>][] = [];
  private readonly views = new Map<string, (args: ViewArgs) => Promise<void>>();
  private readonly events = new Map<string, (args: EventArgs) => Promise<void>>();
  /** Events this replica handled, by event_id: a retry here is dropped without asking the store. */
  private readonly handledEvents = growingLru<string, true>(10_000, { ttl: EVENT_WINDOW_MS });
  private homeAnswer?: HomeAnswer;

  private static handling({ log, team, tenant }: RequestContext, reply: Reply): Handling {
    return { log, reply, team, tenant };
  }

  /**
   * A slash command, handled: acked at once, then `work` with the request's logger and an
   * ephemeral `reply`; anything it throws is logged and the person told (platform/slack/respond.ts guarded).
   */
  handleCommand(name: string, work: (args: CommandArgs, h: Handling) => Promise<unknown>): void {
    this.command(name, async (args) => {
      await args.ack();
      const reply = args.context.responses.reply(args.command.response_url, false);
      await guarded(args.context.log, name, reply, () => work(args, Routes.handling(args.context, reply)));
    });
  }

  /**
   * A block action, handled as a command is; `answer` says where `reply` puts its answer (default: a new ephemeral
   * message). A click on the Home tab is answered on the Home (see answerOnHome); one in a modal, which has
   * nowhere to answer, is only logged.
   */
  handle(id: string | RegExp, work: (args: ActionArgs, h: Handling) => Promise<unknown>, answer: Answer = 'new'): void {
    const what = typeof id === 'string' ? id : id.source;
    this.action(id, async (args) => {
      await args.ack();
      const { log } = args.context;
      const reply = answer === 'none' ? undefined : this.replyFor(args, answer, what);
      await guarded(log, what, reply, () =>
        work(args, Routes.handling(args.context, reply ?? (async () => undefined))),
      );
    });
  }

  /** How a click on the Home tab is answered (the Home feature publishes the Home with the answer at its top). */
  answerOnHome(answer: HomeAnswer): void {
    this.homeAnswer = answer;
  }

  private replyFor(args: ActionArgs, answer: Answer, what: string): Reply {
    const { body, context } = args;
    const homeAnswer = this.homeAnswer;
    if ((body.view as { type?: string } | undefined)?.type === 'home' && homeAnswer)
      return (message) => homeAnswer(args, teamOf(body), message);
    if (!body.response_url)
      return async (message) =>
        context.log.info({ what, said: message.text }, 'a click with nowhere to answer it (no response_url): not told');
    const replace = answer === 'replace' || (answer === 'in place if ephemeral' && isEphemeral(body));
    return context.responses.reply(body.response_url, replace);
  }

  command(name: string, handler: (args: CommandArgs) => Promise<void>): void {
    this.commands.set(name, handler);
  }

  action(id: string | RegExp, handler: (args: ActionArgs) => Promise<void>): void {
    if (typeof id === 'string') this.actions.set(id, handler);
    else this.actionPatterns.push([id, handler]);
  }

  view(callbackId: string, handler: (args: ViewArgs) => Promise<void>): void {
    this.views.set(callbackId, handler);
  }

  event(type: string, handler: (args: EventArgs) => Promise<void>): void {
    this.events.set(type, handler);
  }

  /**
   * Anything no feature handles is acked and logged, so Slack shows no error and nothing
   * waits. `observe` hears each request's outcome: ok, error (the handler threw) or unknown.
   * Slack retries an event it got no timely 200 for, to any replica: with `firstSeen` (the
   * store) each event_id is handled once across replicas and restarts.
   */
  mount(
    app: App<RequestContext>,
    { observe = () => {}, firstSeen }: { observe?: Observe; firstSeen?: FirstSeen } = {},
  ): void {
    const counted = async <A>(type: string, name: string, handler: (args: A) => Promise<void>, args: A) => {
      try {
        await handler(args);
        observe(type, name, 'ok');
      } catch (error) {
        observe(type, name, 'error');
        throw error;
      }
    };
    // Keyed by workspace too: an event id is Slack's, and nothing says it is unique across workspaces.
    const firstTime = async (team: string, eventId: string, logger: EventArgs['logger']): Promise<boolean> => {
      const key = `${team}:${eventId}`;
      if (this.handledEvents.has(key)) return false;
      this.handledEvents.set(key, true);
      if (!firstSeen) return true;
      try {
        return await firstSeen(`event:${key}`, EVENT_WINDOW_MS);
      } catch (error) {
        logger.warn(
          `could not check event ${eventId} in the store (${error instanceof Error ? error.message : String(error)}); checked on this replica only`,
        );
        return true;
      }
    };
    app.command(/.*/, async (args) => {
      const handler = this.commands.get(args.command.command);
      if (handler) return counted('command', args.command.command, handler, args);
      observe('command', 'unknown', 'unknown');
      await args.ack();
      args.logger.warn(`no listener for the command ${args.command.command}`);
    });
    app.action({ type: 'block_actions' }, async (args) => {
      const id = args.action.action_id;
      const pattern = this.actions.has(id) ? undefined : this.actionPatterns.find(([p]) => p.test(id));
      const handler = this.actions.get(id) ?? pattern?.[1];
      if (handler) return counted('action', pattern ? pattern[0].source : id, handler, args);
      observe('action', 'unknown', 'unknown');
      await args.ack();
      args.logger.warn(`no listener for the action ${id}`);
    });
    app.event(/.*/, async (args) => {
      const type = args.event.type;
      const handler = this.events.get(type);
      if (!handler) {
        observe('event', 'unknown', 'unknown');
        args.logger.debug(`no listener for the event ${type}: ignored`);
        return;
      }
      const eventId = (args.body as { event_id?: unknown }).event_id;
      if (typeof eventId === 'string' && !(await firstTime(teamOf(args.body), eventId, args.logger))) {
        observe('event', type, 'ok');
        args.logger.info(`event ${eventId} (${type}) was handled already: a retry, ignored`);
        return;
      }
      return counted('event', type, handler, args);
    });
    app.view({ type: 'view_submission' }, async (args) => {
      const handler = this.views.get(args.view.callback_id);
      if (handler) return counted('view', args.view.callback_id, handler, args as ViewArgs);
      observe('view', 'unknown', 'unknown');
      await args.ack();
      args.logger.warn(`no listener for the view ${args.view.callback_id}`);
    });
  }
}
