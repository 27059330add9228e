/** Pure formatters for numbers, durations, percentages, deltas, bars, dates and text. */

export const MISSING = '—';

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

function isNumber(n: number | undefined | null): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** 1234567 → "1,234,567". */
export function formatCount(n: number | undefined | null): string {
  return isNumber(n) ? countFormat.format(n) : MISSING;
}

/** 1234567 → "1.2M", 1234 → "1.2K", 999 → "999". */
export function formatCompact(n: number | undefined | null): string {
  return isNumber(n) ? compactFormat.format(n) : MISSING;
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

/** A fraction → percent: 0.5 → "50%", 0.034 → "3.4%", 0.0001 → "<0.1%". */
export function formatPercent(fraction: number | undefined | null): string {
  if (!isNumber(fraction)) return MISSING;
  const pct = fraction * 100;
  const abs = Math.abs(pct);
  if (abs === 0) return '0%';
  if (abs < 0.05) return pct > 0 ? '<0.1%' : '>-0.1%';
  if (abs < 9.95) return `${Number(pct.toFixed(1))}%`;
  return `${formatCount(Math.round(pct))}%`;
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

/**
 * The calendar fields (year, month, day, and with `withTime` hour and minute) of an
 * instant in an IANA zone; undefined for a bad zone. Formatters are made once a zone.
 */
export function partsInZone(date: Date, timeZone: string, withTime = false): Record<string, number> | undefined {
  const key = `${timeZone}|${withTime}`;
  let f = zoneFormats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        ...(withTime ? { hour: 'numeric', minute: 'numeric', hourCycle: 'h23' } : {}),
        calendar: 'gregory',
        numberingSystem: 'latn',
      });
    } catch {
      f = null;
    }
    zoneFormats.set(key, f);
  }
  if (!f || Number.isNaN(date.getTime())) return undefined;
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(date)) if (p.type !== 'literal') out[p.type] = Number(p.value);
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

/** Shortens to at most `max` code points, ending in "…" when cut; never splits a surrogate pair. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  if (max <= 0) return '';
  return `${points.slice(0, max - 1).join('').trimEnd()}…`;
}

/**
 * A piece of user input made safe to show inside a `code span` of a one-line message:
 * one line, no backticks, at most 40 code points. The caller still escapes &, <, >.
 */
export function quoteInput(text: string, max = 40): string {
  return truncate(text.replace(/\s+/g, ' ').replace(/`/g, "'"), max);
}
