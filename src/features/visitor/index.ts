import { answering, logOf, type LookoutFeature } from '../../context.js';
import { registerVisitor } from './listeners.js';
import { VISITOR_HELP } from './parse.js';
import { VisitorService } from './service.js';
import { visitorTool } from './tools.js';

export type { VisitorCards, VisitorService } from './service.js';

declare module '../../platform/feature.js' {
  interface Provided {
    visitor: VisitorService;
  }
}

/** `/visitor <id>`: a visitor's security card, and its buttons. */
export const visitor: LookoutFeature<'visitor', never> = {
  name: 'visitor',
  commands: [
    {
      command: '/visitor',
      description: 'Is this visitor a threat, and why?',
      usage: '<visitor_id> [visit <visit_id>]',
      help: VISITOR_HELP,
    },
  ],
  plug(ctx) {
    const service = new VisitorService({
      ...answering(ctx),
      log: logOf(ctx, 'visitor'),
      verdict: ctx.verdict,
    });
    return { gives: service, tools: [visitorTool(service)], register: (routes) => registerVisitor(routes, service) };
  },
};
