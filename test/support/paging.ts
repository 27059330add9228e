import type { ReportId, ReportRow } from '../../src/kernel/catalog.js';
import type { MarketingRequest } from '../../src/kernel/query.js';
import type { AnalyticsApi } from '../../src/platform/api/analytics.js';

/** Every row of a report, page by page, for checking answers against the whole; `complete` says whether the end was reached. */
export async function allRows(
  api: AnalyticsApi,
  id: ReportId,
  request: MarketingRequest,
  pageSize = 1000,
  maxRows = 100_000,
): Promise<{ rows: ReportRow[]; complete: boolean }> {
  const rows: ReportRow[] = [];
  for (let page = 1; rows.length < maxRows; page++) {
    const batch = await api.report(id, { ...request, page, limit: pageSize });
    rows.push(...batch);
    if (batch.length < pageSize) return { rows, complete: true };
  }
  return { rows, complete: false };
}
