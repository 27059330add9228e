import { answering, type LookoutFeature } from '../../context.js';
import { REPORTS } from '../../kernel/catalog.js';
import { registerReports } from './listeners/index.js';
import { registerTraffic } from './listeners/traffic.js';
import { ReportService } from './service.js';
import { reportTool } from './tools.js';

export type { ReportService } from './service.js';
export { queryOf, refusalOf } from './tools.js';

declare module '../../platform/feature.js' {
  interface Provided {
    reports: ReportService;
  }
}

/** `/traffic <report> …`: reports, their buttons and modals, help, and the dispatch of every feature's sub-command. */
export const reports: LookoutFeature<'reports', 'visitor'> = {
  name: 'reports',
  commands: [
    {
      command: '/traffic',
      description: 'Visitor analytics: reports, trends, watches, digests and threat alerts',
      usage: 'sources last7d country:Germany by visits top 10',
    },
  ],
  needs: ['visitor'],
  plug(ctx, { visitor }) {
    const service = new ReportService({
      ...answering(ctx),
      stash: ctx.platform.repos.stash,
      catalog: REPORTS,
      seal: ctx.platform.seal,
    });
    return {
      gives: service,
      tools: [reportTool(service, ctx.apiDays.timeZone)],
      register(routes, commands) {
        registerTraffic(routes, service, commands);
        registerReports(routes, service, visitor);
      },
    };
  },
};
