import type { AnalyticsApi } from '../api/analytics.js';
import type { ReportCatalog } from '../../kernel/query.js';
import type { Logger } from '../log.js';
import type { QueryRefs } from '../../features/reports/refs.js';
import type { SecurityAccess } from './access.js';
import type { VerdictOptions } from '../../kernel/verdict.js';
import type { DigestRepo } from '../../features/digests/repo.js';
import type { DigestService } from '../../features/digests/service.js';
import type { AlertMuteRepo, AlertRepo, AlertSubscriptionRepo, WatchState } from '../../features/alerts/repo.js';

/** What the listeners need from the rest of the program. */
export interface SlackDeps {
  api: AnalyticsApi;
  catalog: ReportCatalog;
  refs: QueryRefs;
  log: Logger;
  now: () => Date;
  /** The zone date ranges are resolved in for a channel. */
  timeZoneFor: (channelId: string | undefined) => Promise<string>;
  /** Answers say "demo data" when the demo API is behind them. */
  demo: boolean;
  security: SecurityAccess;
  verdict: VerdictOptions;
  /** The zone for things that have no channel or user zone. */
  defaultTimezone: string;
  /** Who may manage any digest (and alerts); empty means everyone. */
  admins: readonly string[];
  digests: { repo: DigestRepo; service: DigestService };
  alerts: {
    subscriptions: AlertSubscriptionRepo;
    mutes: AlertMuteRepo;
    alerts: AlertRepo;
    watcher: { state(): Promise<WatchState | undefined> };
  };
}

/** A listener made with the request's own logger (see the middleware in app.ts), so its lines carry the request id. */
export function perRequest<A extends { context: Record<string, unknown> }>(deps: SlackDeps, make: (deps: SlackDeps) => (args: A) => Promise<void>) {
  return (args: A): Promise<void> => make({ ...deps, log: (args.context.log as Logger | undefined) ?? deps.log })(args);
}
