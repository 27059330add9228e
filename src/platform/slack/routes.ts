import type { AllMiddlewareArgs, App, BlockAction, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
export type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** Told of each request's outcome, by type (command, action, view) and name. */
export type Observe = (type: string, name: string, outcome: 'ok' | 'error' | 'unknown') => void;

/**
 * Where each feature registers its listeners. Bolt runs every request past every listener
 * it has; mounted, these are three listeners (commands, block actions, view submissions)
 * that find the one handler by name, so a request costs the same however many there are.
 */
export class Routes {
  private readonly commands = new Map<string, (args: CommandArgs) => Promise<void>>();
  private readonly actions = new Map<string, (args: ActionArgs) => Promise<void>>();
  private readonly actionPatterns: [RegExp, (args: ActionArgs) => Promise<void>][] = [];
  private readonly views = new Map<string, (args: ViewArgs) => Promise<void>>();

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

  /**
   * Anything no feature handles is acked and logged, so Slack shows no error and nothing
   * waits. `observe` hears each request's outcome: ok, error (the handler threw) or unknown.
   */
  mount(app: App, observe: Observe = () => {}): void {
    const counted = async <A>(type: string, name: string, handler: (args: A) => Promise<void>, args: A) => {
      try {
        await handler(args);
        observe(type, name, 'ok');
      } catch (error) {
        observe(type, name, 'error');
        throw error;
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
      const id = (args as ActionArgs).action.action_id;
      const pattern = this.actions.has(id) ? undefined : this.actionPatterns.find(([p]) => p.test(id));
      const handler = this.actions.get(id) ?? pattern?.[1];
      if (handler) return counted('action', pattern ? pattern[0].source : id, handler, args as ActionArgs);
      observe('action', 'unknown', 'unknown');
      await args.ack();
      args.logger.warn(`no listener for the action ${id}`);
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
