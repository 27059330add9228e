import { decodeQuery, encodeQuery, type ReportQuery } from '../../src/kernel/query.js';
import { REPORTS } from '../../src/kernel/catalog.js';
import type { TrendSpec } from '../../src/kernel/trend.js';
import type { AnalyticsApi } from '../../src/platform/api/analytics.js';
import type { SharedFetcher } from '../../src/platform/api/shared-fetcher.js';
import type { Logger } from '../../src/platform/log.js';
import type { TrendService } from '../../src/features/trends/service.js';

/** Refs that always travel inline (no stash): enough for services driven without Slack. */
export class QueryRefsStub {
  async ref(_team: string, query: ReportQuery): Promise<string> {
    return encodeQuery(query);
  }
  async resolve(_team: string, ref: string | undefined): Promise<ReportQuery | null> {
    return ref ? decodeQuery(ref, REPORTS) : null;
  }
}

/** A trend service asked of one analytics account (the one `api` reaches, through `fetcher`), as a workspace on it would. */
export function ofAccount(service: TrendService, api: AnalyticsApi, fetcher: SharedFetcher) {
  const from = { account: api.account, fetcher };
  return {
    series: (spec: TrendSpec, log?: Logger, onUnit?: () => void) => service.series(from, spec, log, onUnit),
  };
}
