/** The five security lookups: a visitor (and optionally one of their visits) → a status record. */

import type { Dataset } from './dataset.js';
import { notFound } from './errors.js';

export const SECURITY_KINDS = [
  'adblock-status',
  'bot-status',
  'scraping-status',
  'vpn-status',
  'scraping-extensions-status',
] as const;
export type SecurityKind = (typeof SECURITY_KINDS)[number];

/** Kinds that accept the visit_id query parameter (all but scraping-status). */
export const ACCEPTS_VISIT_ID: ReadonlySet<SecurityKind> = new Set([
  'adblock-status',
  'bot-status',
  'vpn-status',
  'scraping-extensions-status',
]);

export const isSecurityKind = (value: string): value is SecurityKind =>
  (SECURITY_KINDS as readonly string[]).includes(value);

/**
 * The status record. The profile is per visitor, so a visit_id only has to
 * belong to the visitor (else 404); it does not change the answer.
 */
export function securityRecord(
  dataset: Dataset,
  kind: SecurityKind,
  visitorId: string,
  visitId: string | undefined,
): Record<string, unknown> {
  const profile = dataset.securityOf(visitorId);
  if (!profile) throw notFound('unknown visitor');
  if (visitId !== undefined && ACCEPTS_VISIT_ID.has(kind)) {
    const visit = dataset.getVisit(visitId);
    if (!visit || visit.visitor_id !== visitorId) throw notFound('unknown visit for this visitor');
  }
  const visitor_id = visitorId;
  switch (kind) {
    case 'adblock-status':
      return { visitor_id, adblock: profile.adblock, adblock_extension: profile.adblock_extension };
    case 'bot-status':
      return {
        visitor_id,
        is_abuser: profile.is_abuser,
        is_attacker: profile.is_attacker,
        is_proxy: profile.is_proxy,
        is_threat: profile.is_threat,
      };
    case 'scraping-status':
      return { visitor_id, score: profile.score, visitor_type: profile.visitor_type };
    case 'vpn-status':
      return { visitor_id, vpn: profile.vpn };
    case 'scraping-extensions-status':
      return {
        visitor_id,
        adblock: profile.adblock,
        scraper_extension_list: profile.scraper_extension_list.map((e) => ({ ...e })),
      };
  }
}
