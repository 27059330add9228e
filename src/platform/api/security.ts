import type { z } from 'zod';
import type { HttpClient } from './client.js';
import { ApiError, messageFor } from './errors.js';
import { isSafeId } from '../../kernel/text.js';
import type { SecurityAnswers, SecurityCheck } from '../../kernel/records.js';
import { adblockStatus, botStatus, scrapingExtensionsStatus, scrapingStatus, vpnStatus } from './schemas.js';

const OPERATIONS: {
  [K in SecurityCheck]: { path: string; acceptsVisitId: boolean; schema: z.ZodType<SecurityAnswers[K]> };
} = {
  adblock: { path: 'adblock-status', acceptsVisitId: true, schema: adblockStatus },
  bot: { path: 'bot-status', acceptsVisitId: true, schema: botStatus },
  scraping: { path: 'scraping-status', acceptsVisitId: false, schema: scrapingStatus },
  vpn: { path: 'vpn-status', acceptsVisitId: true, schema: vpnStatus },
  extensions: { path: 'scraping-extensions-status', acceptsVisitId: true, schema: scrapingExtensionsStatus },
};

/** The five security lookups. Flag strings arrive normalised to yes/no/unknown (see schemas.ts). */
export class SecurityApi {
  constructor(private readonly http: HttpClient) {}

  check<K extends SecurityCheck>(check: K, visitorId: string, visitId?: string): Promise<SecurityAnswers[K]> {
    const op = OPERATIONS[check];
    const path = `/security/${op.path}/${visitorId}`;
    if (!isSafeId(visitorId)) return Promise.reject(unsafe(path, 'visitor id'));
    const query: Record<string, string> = {};
    if (visitId !== undefined && op.acceptsVisitId) {
      if (!isSafeId(visitId)) return Promise.reject(unsafe(path, 'visit id'));
      query.visit_id = visitId;
    }
    return this.http.get(`/security/${op.path}/${encodeURIComponent(visitorId)}`, query, op.schema);
  }
}

function unsafe(path: string, what: string): ApiError {
  return new ApiError(
    'bad_request',
    messageFor('bad_request', 'a security lookup', `that ${what} has characters an id cannot have`),
    {
      path: path.replace(/[^/]*$/, '…'),
    },
  );
}
