import { z } from 'zod';
import { HttpClient, type HttpClientOptions } from './client.js';
import { REPORTS, ROW_SCHEMAS, type ReportId, type ReportKind, type ReportRow } from '../../kernel/catalog.js';
import { SecurityApi } from './security.js';
import { visitorRecord, visitRecord, type VisitorRecord, type VisitRecord } from './schemas.js';
import type { MarketingRequest } from '../../kernel/filters.js';

const reportSchemas: Record<ReportKind, z.ZodType<ReportRow[]>> = {
  aggregate: z.array(ROW_SCHEMAS.aggregate),
  pages: z.array(ROW_SCHEMAS.pages),
  visitors: z.array(ROW_SCHEMAS.visitors),
  visits: z.array(ROW_SCHEMAS.visits),
};
const visitsSchema = z.array(visitRecord);
const visitorsSchema = z.array(visitorRecord);

/** The analytics API: the 13 Marketing reports and the 5 security lookups. */
export class AnalyticsApi {
  readonly http: HttpClient;
  readonly security: SecurityApi;

  constructor(options: HttpClientOptions) {
    this.http = new HttpClient(options);
    this.security = new SecurityApi(this.http);
  }

  /** One page of a report. The rows may be shared with concurrent callers: treat them as read-only. */
  report(id: ReportId, request: MarketingRequest): Promise<readonly ReportRow[]> {
    const def = REPORTS[id];
    return this.http.post(def.path, request, reportSchemas[def.kind]);
  }

  /** Every page of a report, up to maxRows; `complete` says whether the end was reached. */
  async reportAll(
    id: ReportId,
    request: MarketingRequest,
    options: { pageSize?: number; maxRows?: number } = {},
  ): Promise<{ rows: ReportRow[]; complete: boolean }> {
    const limit = options.pageSize ?? 1000;
    const maxRows = options.maxRows ?? 100_000;
    const rows: ReportRow[] = [];
    for (let page = 1; rows.length < maxRows; page++) {
      const batch = await this.report(id, { ...request, page, limit });
      rows.push(...batch);
      if (batch.length < limit) return { rows, complete: true };
    }
    return { rows, complete: false };
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
