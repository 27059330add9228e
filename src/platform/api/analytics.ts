import { accountOf } from './account.js';
import { HttpClient, type HttpClientOptions } from './client.js';
import { REPORTS, type ReportId, type ReportKind } from '../../kernel/catalog.js';
import type { MarketingRequest } from '../../kernel/query.js';
import type { ReportRow, VisitorRecord, VisitRecord } from '../../kernel/records.js';
import { SecurityApi } from './security.js';
import { aggregatePage, pagesPage, visitorPage, visitPage, type Check } from './schemas.js';

const visitsSchema: Check<VisitRecord[]> = visitPage;
const visitorsSchema: Check<VisitorRecord[]> = visitorPage;
/** The rows of each kind of report. */
const reportSchemas: Record<ReportKind, Check<ReportRow[]>> = {
  aggregate: aggregatePage,
  pages: pagesPage,
  visitors: visitorsSchema,
  visits: visitsSchema,
};

/** The analytics API: the 13 Marketing reports and the 5 security lookups. */
export class AnalyticsApi {
  readonly http: HttpClient;
  readonly security: SecurityApi;
  /** Which analytics account it asks (accountOf): what is kept of its answers is kept under it. */
  readonly account: string;

  constructor(options: HttpClientOptions) {
    this.http = new HttpClient(options);
    this.account = accountOf(options.baseUrl, options.apiKey);
    this.security = new SecurityApi(this.http);
  }

  /** One page of a report. The rows may be shared with concurrent callers: treat them as read-only. */
  report(id: ReportId, request: MarketingRequest): Promise<readonly ReportRow[]> {
    const def = REPORTS[id];
    return this.http.post(def.path, request, reportSchemas[def.kind]);
  }

  visits(request: MarketingRequest): Promise<readonly VisitRecord[]> {
    return this.http.post(REPORTS.visits.path, request, visitsSchema);
  }

  visitors(request: MarketingRequest): Promise<readonly VisitorRecord[]> {
    return this.http.post(REPORTS.visitors.path, request, visitorsSchema);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
