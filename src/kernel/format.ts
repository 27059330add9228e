/** Pure formatters for numbers, durations, deltas, bars, dates, URLs and IP addresses. */
import type { ColumnFormat } from './catalog.js';
import { textOf } from './records.js';
import { clip } from './text.js';

export const MISSING = '—';

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** Made at first use: Intl's first formatter reads ICU's data, about 8 MB resident (bench/memory.ts). */
let countFormat: Intl.NumberFormat | undefined;

function isNumber(n: number | undefined | null): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** 1234567 → "1,234,567". Whole numbers are grouped by hand (Intl costs ~1 µs a call; a page has dozens). */
export function formatCount(n: number | undefined | null): string {
  if (!isNumber(n)) return MISSING;
  if (!Number.isSafeInteger(n))
    return (countFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })).format(n);
  const digits = String(Math.abs(n));
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = digits.slice(Math.max(0, i - 3), i) + (out ? `,${out}` : '');
  return n < 0 ? `-${out}` : out;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Seconds → "45s", "1m 32s", "1h 02m", "2d 03h". */
export function formatDuration(seconds: number | undefined | null): string {
  if (!isNumber(seconds) || seconds < 0) return MISSING;
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  if (total < 3600) return `${Math.floor(total / 60)}m ${pad2(total % 60)}s`;
  if (total < 86_400) return `${Math.floor(total / 3600)}h ${pad2(Math.floor((total % 3600) / 60))}m`;
  return `${formatCount(Math.floor(total / 86_400))}d ${pad2(Math.floor((total % 86_400) / 3600))}h`;
}

/** The noun agreeing with `n`: "visit" for 1 (and -1), "visits" otherwise (`plural` for nouns that do not just take an s). */
export function nounFor(n: number, singular: string, plural = `${singular}s`): string {
  return Math.abs(n) === 1 ? singular : plural;
}

/** "1 visit", "2 visits", "1,204 visits": a count and its noun agreeing. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${nounFor(n, singular, plural)}`;
}

/** A whole span in words: "1 minute", "5 minutes", "2 hours", "1 day" (the largest unit that divides it). */
export function durationInWords(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  const [size, name] = units.find(([size]) => ms >= size && ms % size === 0) ?? [1000, 'second'];
  const n = Math.round(ms / size);
  return counted(n, name);
}

/** Change against a previous value: "▲ 12%", "▼ 5%", "–" (no change), "new". */
export function formatDelta(current: number | undefined | null, previous: number | undefined | null): string {
  if (!isNumber(current)) return MISSING;
  if (!isNumber(previous) || previous === 0) return current > 0 ? 'new' : '–';
  if (current === previous) return '–';
  const pct = ((current - previous) / Math.abs(previous)) * 100;
  const arrow = pct > 0 ? '▲' : '▼';
  const abs = Math.abs(pct);
  return abs < 1 ? `${arrow} <1%` : `${arrow} ${formatCount(Math.round(abs))}%`;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'] as const;

/** A horizontal bar of `width` cells in eighth-blocks, padded with spaces: "█████▌    ". */
export function bar(value: number | undefined | null, max: number | undefined | null, width = 10): string {
  const cells = Math.max(0, Math.floor(isNumber(width) ? width : 0));
  if (!isNumber(value) || !isNumber(max) || value <= 0 || max <= 0) return ' '.repeat(cells);
  const ratio = Math.min(1, value / max);
  // A value above zero always shows at least one eighth.
  const eighths = Math.max(1, Math.round(ratio * cells * 8));
  const full = Math.floor(eighths / 8);
  const part = full < cells ? (EIGHTHS[eighths % 8] ?? '') : '';
  const drawn = '█'.repeat(full) + part;
  return drawn + ' '.repeat(cells - full - (part ? 1 : 0));
}

const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();
/** Offsets are cached by quarter hour (UTC): almost every change falls on one. */
const OFFSET_STEP_MS = 15 * 60_000;
/** Each zone's offset by quarter hour, or 'changes' when it changes within that quarter hour. */
const zoneOffsets = new Map<string, number | 'changes'>();

function zoneFormat(timeZone: string): Intl.DateTimeFormat | null {
  let f = zoneFormats.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
        calendar: 'gregory',
        numberingSystem: 'latn',
      });
    } catch {
      f = null;
    }
    zoneFormats.set(timeZone, f);
  }
  return f;
}

/** How far the zone's wall clock is ahead of UTC at exactly `ms`. */
function offsetAt(ms: number, f: Intl.DateTimeFormat): number {
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day, p.hour, p.minute, p.second) - ms;
}

/**
 * How far the zone's wall clock is ahead of UTC at `ms`; undefined for a bad zone. A
 * quarter hour with the same offset at both ends is cached whole; one with a change
 * inside (St John's changed at 00:01 until 2011) is looked up by the minute.
 */
export function zoneOffset(ms: number, timeZone: string): number | undefined {
  // UTC needs no lookup, and so no Intl (the API's zone by default: settings check it at start).
  if (timeZone === 'UTC') return 0;
  const step = Math.floor(ms / OFFSET_STEP_MS) * OFFSET_STEP_MS;
  const key = `${timeZone}|${step}`;
  const known = zoneOffsets.get(key);
  if (typeof known === 'number') return known;
  const f = zoneFormat(timeZone);
  if (!f) return undefined;
  if (known === undefined) {
    const start = offsetAt(step, f);
    const end = offsetAt(step + OFFSET_STEP_MS - 60_000, f);
    if (zoneOffsets.size > 50_000) zoneOffsets.clear();
    zoneOffsets.set(key, start === end ? start : 'changes');
    if (start === end) return start;
  }
  return offsetAt(Math.floor(ms / 60_000) * 60_000, f);
}

/**
 * The calendar fields (year, month, day, and with `withTime` hour and minute) of an
 * instant in an IANA zone; undefined for a bad zone.
 */
export function partsInZone(date: Date, timeZone: string, withTime = false): Record<string, number> | undefined {
  const ms = date.getTime();
  if (Number.isNaN(ms)) return undefined;
  const offset = zoneOffset(ms, timeZone);
  if (offset === undefined) return undefined;
  const local = new Date(ms + offset);
  const out: Record<string, number> = {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
  };
  if (withTime) {
    out.hour = local.getUTCHours();
    out.minute = local.getUTCMinutes();
  }
  return out;
}

/**
 * An API timestamp in a time zone → "Nov 21, 14:05", or "Nov 21, 2025, 14:05" outside
 * the current year. A timestamp without a zone is taken as UTC; a date alone is shown
 * without a time. Anything unparseable (or a bad zone) comes back as it was given.
 */
export function formatDateTime(iso: string, timeZone: string, now: Date = new Date()): string {
  if (typeof iso !== 'string') return String(iso);
  // Only ISO 8601: Date.parse reads other shapes in the machine's own zone.
  const m = ISO.exec(iso.trim());
  if (!m) return iso;
  const [, date = '', time, zone] = m;
  const [y = 0, mo = 0, d = 0] = date.split('-').map(Number);
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return iso;
  const dateOnly = time === undefined;
  const offset = !zone ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  const ms = Date.parse(dateOnly ? `${date}T00:00:00Z` : `${date}T${time}${offset}`);
  const shownIn = dateOnly ? 'UTC' : timeZone;
  const at = Number.isNaN(ms) ? undefined : partsInZone(new Date(ms), shownIn, true);
  if (!at) return iso;
  const nowYear = partsInZone(now, shownIn, true)?.year ?? at.year;
  const month = MONTHS[(at.month ?? 1) - 1] ?? '';
  const day = `${month} ${at.day}`;
  const withYear = at.year === nowYear ? day : `${day}, ${at.year}`;
  return dateOnly ? withYear : `${withYear}, ${pad2(at.hour ?? 0)}:${pad2(at.minute ?? 0)}`;
}

/** A time with the zone it is shown in: "Nov 23, 09:00 (Europe/Berlin)". */
export function formatDateTimeIn(iso: string, timeZone: string, now: Date = new Date()): string {
  return `${formatDateTime(iso, timeZone, now)} (${timeZone})`;
}

/** `https://www.example.com/blog/x?y=1` → `/blog/x?y=1`: the host is the same on every row. */
export function shortUrl(url: string | undefined | null): string {
  if (!url) return MISSING;
  const match = /^[a-z]+:\/\/[^/]+(\/.*)?$/i.exec(url);
  return match ? match[1] || '/' : url;
}

/** 203.0.113.45 → 203.0.113.x; 2001:db8:1:2::5 → 2001:db8:1:…; 2001::5 → 2001::…; anything else is hidden. */
export function maskIp(ip: string | null | undefined): string {
  if (!ip) return MISSING;
  const v4 = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}$/.exec(ip.trim());
  if (v4) return `${v4[1]}.x`;
  // IPv6: at most the first three groups, and only those before a "::" (after it comes the host part).
  const v6 = ip.trim();
  const head = v6.split('::')[0]!.split(':').filter(Boolean).slice(0, 3);
  if (v6.includes(':') && /^[0-9a-f:.]+$/i.test(v6) && head.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) {
    return `${head.join(':')}${head.length < 3 && v6.includes('::') ? '::' : ':'}…`;
  }
  return 'hidden';
}

/** A report field's value as every answer shows it: counts, durations, times in the reader's zone, pages by their path. */
export function formatField(value: unknown, format: ColumnFormat, timeZone: string, now: Date, max = 120): string {
  switch (format) {
    case 'count':
      return formatCount(typeof value === 'number' ? value : undefined);
    case 'duration':
      return formatDuration(typeof value === 'number' ? value : undefined);
    case 'datetime':
      return typeof value === 'string' && value ? formatDateTime(value, timeZone, now) : MISSING;
    case 'url':
      return typeof value === 'string' && value ? clip(shortUrl(value), max) : MISSING;
    default:
      return value === undefined || value === null || value === '' ? MISSING : clip(textOf(value), max);
  }
}
