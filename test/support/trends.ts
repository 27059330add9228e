import { decodeQuery, encodeQuery, type ReportQuery } from '../../src/kernel/query.js';
import { REPORTS } from '../../src/kernel/catalog.js';

/** Refs that always travel inline (no stash): enough for services driven without Slack. */
export class QueryRefsStub {
  async ref(_team: string, query: ReportQuery): Promise<string> {
    return encodeQuery(query);
  }
  async resolve(_team: string, ref: string | undefined): Promise<ReportQuery | null> {
    return ref ? decodeQuery(ref, REPORTS) : null;
  }
}
