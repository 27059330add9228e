import { z } from 'zod';
import { textOf, type Flag, type FlagValue, type VisitorRecord, type VisitRecord } from '../../kernel/records.js';

/**
 * Schemas of everything the analytics API returns. Tolerant by design: unknown
 * fields are kept (looseObject), numbers may arrive as numeric strings, and
 * fields the spec does not mark required may be missing. Intolerant of what
 * would break rendering: a row that is not an object, a wrong type where a
 * value is present, a non-array where an array is due.
 */

const NUMERIC_STRING = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A finite number, or a string holding one ("12", "3.5"). */
export const numeric = z.preprocess(
  (v) => (typeof v === 'string' && NUMERIC_STRING.test(v) ? Number(v) : v),
  z.number().finite(),
);

const optionalNumber = numeric
  .optional()
  .nullable()
  .transform((v) => v ?? undefined);

/** A display name; null is allowed (an unset campaign, say) and becomes undefined. */
const optionalName = z
  .string()
  .nullable()
  .optional()
  .transform((v) => v ?? undefined);

/** Rows of /cities, /countries, /states, and the traffic and user-agent reports (checked by `aggregatePage`). */
export interface AggregateRow {
  name?: string | undefined;
  label?: string | undefined;
  id?: string | undefined;
  total_visits?: number | undefined;
  unique_visitors?: number | undefined;
  average_duration?: number | undefined;
  [field: string]: unknown;
}

/** Rows of /pages: the spec marks all four fields required (checked by `pagesPage`). */
export interface PageRow {
  full_url: string;
  total: number;
  visitors: number;
  avg_duration: number;
  [field: string]: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a field of a record checked in place may hold; `?` means it may be missing. */
const FIELD_KINDS = {
  string: [(v: unknown) => typeof v === 'string', 'expected a string'],
  'string?': [(v: unknown) => v === undefined || typeof v === 'string', 'expected a string'],
  'string|null?': [(v: unknown) => v === undefined || v === null || typeof v === 'string', 'expected a string or null'],
  'object|null?': [(v: unknown) => v === undefined || v === null || isRecord(v), 'expected an object'],
  'object|string|null?': [
    (v: unknown) => v === undefined || v === null || typeof v === 'string' || isRecord(v),
    'expected an object or a string',
  ],
} as const;

type FieldChecks = readonly (readonly [field: string, ok: (v: unknown) => boolean, message: string])[];

function fieldChecks(fields: Record<string, keyof typeof FIELD_KINDS>): FieldChecks {
  return Object.entries(fields).map(([field, kind]) => [field, ...FIELD_KINDS[kind]] as const);
}

/** The first thing wrong with a record, as a path under it and a message. */
function recordProblem(row: unknown, checks: FieldChecks): { path: string[]; message: string } | undefined {
  if (!isRecord(row)) return { path: [], message: 'expected an object' };
  for (const [field, ok, message] of checks) if (!ok(row[field])) return { path: [field], message };
  return undefined;
}

/**
 * Records whose fields are checked where they are, not copied: the big pages (1,000
 * visits, visitors) are read as the API sent them, and what rendering depends on is
 * checked. Other fields are kept, as everywhere ("not shown" means open). A page is
 * checked in one loop: zod's own per-element machinery cost more than the JSON parse.
 */
function checkedInPlace<T>(checks: FieldChecks): z.ZodType<T> {
  return z.unknown().superRefine((row, ctx) => {
    const problem = recordProblem(row, checks);
    if (problem) ctx.addIssue({ code: 'custom', ...problem });
  }) as unknown as z.ZodType<T>;
}

/** A check of what the API answered that is not a zod schema: the value as it came, or where it is wrong (as `firstIssuePath` says it). */
export interface Check<T> {
  readonly plain: true;
  check(input: unknown): { ok: true; value: T } | { ok: false; where: string };
}

/**
 * A page of records, checked in one plain loop. Through zod (even a single superRefine
 * over the page) a freshly parsed 1,000-visit page cost 1.3 ms more CPU than the loop
 * (`bench/api-client.ts`), more than half of what JSON.parse costs.
 */
function checkedPage<T>(checks: FieldChecks): Check<T[]> {
  return {
    plain: true,
    check(rows) {
      if (!Array.isArray(rows)) return { ok: false, where: '(root): expected an array' };
      for (let i = 0; i < rows.length; i++) {
        const problem = recordProblem(rows[i], checks);
        if (problem)
          return { ok: false, where: `[${i}]${problem.path.map((p) => `.${p}`).join('')}: ${problem.message}` };
      }
      return { ok: true, value: rows as T[] };
    },
  };
}

/** A finite number, or a string holding one, as a number; undefined for anything else. */
function countOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && NUMERIC_STRING.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

const BAD = Symbol('bad');

/** How a report row's field is read: the value the product reads, or BAD; `?`: it may be missing, and null reads as missing. */
const ROW_FIELD_KINDS = {
  string: [(v: unknown) => (typeof v === 'string' ? v : BAD), 'expected a string'],
  'string|null?': [
    (v: unknown) => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : BAD),
    'expected a string or null',
  ],
  number: [(v: unknown) => countOf(v) ?? BAD, 'expected a number or a numeric string'],
  'number|null?': [
    (v: unknown) => (v === undefined || v === null ? undefined : (countOf(v) ?? BAD)),
    'expected a number, a numeric string or null',
  ],
} as const;

/**
 * A page of report rows, read in one plain loop and in place (the API's answer is parsed for
 * this call alone): numeric strings become numbers and null becomes undefined; other fields are
 * kept. Through zod, a 10-row page cost 3.7 µs and 8.5 kB of allocations more than JSON.parse.
 */
function readPage<T>(fields: Record<string, keyof typeof ROW_FIELD_KINDS>): Check<T[]> {
  const reads = Object.entries(fields).map(([field, kind]) => [field, ...ROW_FIELD_KINDS[kind]] as const);
  return {
    plain: true,
    check(rows) {
      if (!Array.isArray(rows)) return { ok: false, where: '(root): expected an array' };
      for (let i = 0; i < rows.length; i++) {
        const row: unknown = rows[i];
        if (!isRecord(row)) return { ok: false, where: `[${i}]: expected an object` };
        for (const [field, readField, message] of reads) {
          const value = row[field];
          const read = readField(value);
          if (read === BAD) return { ok: false, where: `[${i}].${field}: ${message}` };
          if (read !== value) row[field] = read;
        }
      }
      return { ok: true, value: rows as T[] };
    },
  };
}

export const aggregatePage = readPage<AggregateRow>({
  name: 'string|null?',
  label: 'string|null?',
  id: 'string|null?',
  total_visits: 'number|null?',
  unique_visitors: 'number|null?',
  average_duration: 'number|null?',
});

export const pagesPage = readPage<PageRow>({
  full_url: 'string',
  total: 'number',
  visitors: 'number',
  avg_duration: 'number',
});

/** The company model is "not shown" in the spec: an open record (its name may be null). */
const VISITOR_FIELDS = fieldChecks({
  id: 'string',
  first_seen: 'string',
  last_seen: 'string',
  company: 'object|null?',
});
export const visitorRecord = checkedInPlace<VisitorRecord>(VISITOR_FIELDS);
export const visitorPage = checkedPage<VisitorRecord>(VISITOR_FIELDS);

/** The nested models of a visit are "not shown": open records, kept as they came. */
const VISIT_FIELDS = fieldChecks({
  id: 'string?',
  visitor_id: 'string?',
  date: 'string?',
  url: 'string?',
  referrer: 'string|null?',
  ip: 'string|null?',
  timezone: 'string|null?',
  params: 'object|string|null?',
  browser: 'object|null?',
  device: 'object|null?',
  location: 'object|null?',
  screen: 'object|null?',
  trafficSource: 'object|null?',
});
export const visitRecord = checkedInPlace<VisitRecord>(VISIT_FIELDS);
export const visitPage = checkedPage<VisitRecord>(VISIT_FIELDS);

// --- Security ------------------------------------------------------------

const YES = new Set(['true', 'yes', '1', 'y']);
const NO = new Set(['false', 'no', '0', 'n']);

/** true/yes/1 → yes; false/no/0 → no; Unknown, empty, anything else → unknown. */
export function normaliseFlag(input: unknown): Flag {
  const raw = textOf(input);
  const key = raw.trim().toLowerCase();
  const value: FlagValue = YES.has(key) ? 'yes' : NO.has(key) ? 'no' : 'unknown';
  return { value, raw };
}

const flag = z.union([z.string(), z.boolean(), z.number(), z.null()]).optional().transform(normaliseFlag);

/**
 * The element shape of scraper_extension_list is "not shown": a string, or an
 * object with a name (or id). Each becomes a display name.
 */
const extensionName = z.union([
  z.string(),
  z.looseObject({ name: z.string().optional(), id: z.union([z.string(), z.number()]).optional() }),
]);

export const adblockStatus = z.looseObject({
  visitor_id: z.string().optional(),
  adblock: flag,
  adblock_extension: optionalName,
});

export const botStatus = z.looseObject({
  visitor_id: z.string().optional(),
  is_abuser: flag,
  is_attacker: flag,
  is_proxy: flag,
  is_threat: flag,
});

export const scrapingStatus = z.looseObject({
  visitor_id: z.string().optional(),
  score: optionalNumber,
  visitor_type: optionalName,
});

export const vpnStatus = z.looseObject({
  visitor_id: z.string().optional(),
  vpn: flag,
});

export const scrapingExtensionsStatus = z.looseObject({
  visitor_id: z.string().optional(),
  adblock: flag,
  scraper_extension_list: z
    .array(extensionName)
    .nullable()
    .optional()
    .transform((list) => (list ?? []).map((e) => (typeof e === 'string' ? e : (e.name ?? String(e.id ?? '?'))))),
});

/** The first bad field of a failed parse, as a path like `[3].total_visits`. */
export function firstIssuePath(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return '(root)';
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return `${path || '(root)'}: ${issue.message}`;
}
