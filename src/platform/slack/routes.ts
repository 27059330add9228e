import type { AllMiddlewareArgs, App, BlockAction, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
export type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

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

  /** Anything no feature handles is acked and logged, so Slack shows no error and nothing waits. */
  mount(app: App): void {
    app.command(/.*/, async (args) => {
      const handler = this.commands.get(args.command.command);
      if (handler) return handler(args);
      await args.ack();
      args.logger.warn(`no listener for the command ${args.command.command}`);
    });
    app.action({ type: 'block_actions' }, async (args) => {
      const id = (args as ActionArgs).action.action_id;
      const handler = this.actions.get(id) ?? this.actionPatterns.find(([pattern]) => pattern.test(id))?.[1];
      if (handler) return handler(args as ActionArgs);
      await args.ack();
      args.logger.warn(`no listener for the action ${id}`);
    });
    app.view({ type: 'view_submission' }, async (args) => {
      const handler = this.views.get(args.view.callback_id);
      if (handler) return handler(args as ViewArgs);
      await args.ack();
      args.logger.warn(`no listener for the view ${args.view.callback_id}`);
    });
  }
}
