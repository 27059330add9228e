/**
 * What the analytics API's answers are, as the product reads them. The API
 * client (platform/api) checks every response against schemas that produce
 * these shapes; nothing here knows how they were fetched.
 */

/** One row of any report: read its fields with `fieldOf`. */
export type ReportRow = Readonly<Record<string, unknown>>;

/** A visit. The nested models are "not shown" in the spec: open records. */
export interface VisitRecord {
  id?: string;
  visitor_id?: string;
  date?: string;
  url?: string;
  referrer?: string | null;
  ip?: string | null;
  timezone?: string | null;
  params?: Record<string, unknown> | string | null;
  browser?: Record<string, unknown> | null;
  device?: Record<string, unknown> | null;
  location?: Record<string, unknown> | null;
  screen?: Record<string, unknown> | null;
  trafficSource?: Record<string, unknown> | null;
  [field: string]: unknown;
}

export interface VisitorRecord {
  id: string;
  first_seen: string;
  last_seen: string;
  company?: { name?: string | null; [field: string]: unknown } | null;
  [field: string]: unknown;
}

/** Reads a dotted path (`location.country`) from a row. */
export function fieldOf(row: unknown, path: string): unknown {
  if (!path.includes('.'))
    return row !== null && typeof row === 'object' ? (row as Record<string, unknown>)[path] : undefined;
  let value: unknown = row;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

// --- Security ------------------------------------------------------------

/** A field's value as text: scalars as they read, objects as JSON, `missing` for null or undefined. */
export function textOf(value: unknown, missing = ''): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'undefined':
      return missing;
    default:
      return value === null ? missing : (JSON.stringify(value) ?? missing);
  }
}

export type FlagValue = 'yes' | 'no' | 'unknown';

/** A security flag: normalised value plus the raw string, kept for display. */
export interface Flag {
  value: FlagValue;
  raw: string;
}

/** The five security lookups, in the order they are shown. */
export const SECURITY_CHECKS = ['adblock', 'bot', 'scraping', 'vpn', 'extensions'] as const;
export type SecurityCheck = (typeof SECURITY_CHECKS)[number];

export interface AdblockStatus {
  visitor_id?: string;
  adblock: Flag;
  adblock_extension?: string;
}

export interface BotStatus {
  visitor_id?: string;
  is_abuser: Flag;
  is_attacker: Flag;
  is_proxy: Flag;
  is_threat: Flag;
}

export interface ScrapingStatus {
  visitor_id?: string;
  score?: number;
  visitor_type?: string;
}

export interface VpnStatus {
  visitor_id?: string;
  vpn: Flag;
}

export interface ScrapingExtensionsStatus {
  visitor_id?: string;
  adblock: Flag;
  /** Display names. */
  scraper_extension_list: string[];
}

export interface SecurityAnswers {
  adblock: AdblockStatus;
  bot: BotStatus;
  scraping: ScrapingStatus;
  vpn: VpnStatus;
  extensions: ScrapingExtensionsStatus;
}

/** One answer of several asked at once: its value, or why it is missing. */
export type Part<T> = { ok: true; value: T } | { ok: false; error: { kind: string; message: string } };
