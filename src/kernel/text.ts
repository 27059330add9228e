/**
 * Text as people type it and as we show it back: the command tokenizer, Slack's
 * own escaping undone, did-you-mean, ids, channel mentions, durations, and
 * cutting text to a length. Pure.
 */

import { z } from 'zod';

// --- Tokens -----------------------------------------------------------------

/** Straight and typographic double quotes all open and close a quoted part. */
const QUOTES = new Set(['"', '“', '”', '„', '‟']);

export interface Segment {
  text: string;
  quoted: boolean;
}

export interface Token {
  segments: Segment[];
  /** The token with quotes removed. */
  text: string;
  /** Lower-case text when nothing in the token was quoted (only such tokens are keywords). */
  word?: string;
}

function makeToken(segments: Segment[]): Token {
  const text = segments.map((s) => s.text).join('');
  return segments.some((s) => s.quoted) ? { segments, text } : { segments, text, word: text.toLowerCase() };
}

/** A form field's or a stored value's words as tokens (no quotes: every one a word). */
export function plainTokens(text: string): Token[] {
  return String(text)
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => ({ segments: [{ text: w, quoted: false }], text: w, word: w.toLowerCase() }));
}

/** Slack sends &, <, > as entities and wraps what it takes for a link in <url|label>. */
export function unescapeSlackText(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^<>|\s]*)(?:\|([^<>]*))?>/gi, (_m, url: string, label?: string) => label ?? url)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Words split on white space; a quoted part keeps its spaces. An unclosed quote is an error message. */
export function tokenize(text: string): Token[] | { error: string } {
  const tokens: Token[] = [];
  let segments: Segment[] | undefined;
  let buf = '';
  let quoteAt = -1;
  const chars = Array.from(typeof text === 'string' ? text : '');
  const flush = (quoted: boolean) => {
    if (buf !== '' || quoted) (segments ??= []).push({ text: buf, quoted });
    buf = '';
  };
  chars.forEach((ch, i) => {
    if (quoteAt >= 0) {
      if (QUOTES.has(ch)) {
        flush(true);
        quoteAt = -1;
      } else buf += ch;
    } else if (QUOTES.has(ch)) {
      flush(false);
      segments ??= [];
      quoteAt = i;
    } else if (/\s/u.test(ch)) {
      flush(false);
      if (segments) tokens.push(makeToken(segments));
      segments = undefined;
    } else {
      buf += ch;
    }
  });
  if (quoteAt >= 0) {
    return { error: `A quote is not closed: ${code(chars.slice(quoteAt).join(''))}. Put a " at the end of the value.` };
  }
  flush(false);
  if (segments) tokens.push(makeToken(segments));
  return tokens;
}

/** A slash command's text as tokens, with Slack's escaping undone first. */
export function commandTokens(text: string): Token[] | { error: string } {
  return tokenize(unescapeSlackText(typeof text === 'string' ? text : ''));
}

// --- Did you mean -------------------------------------------------------------

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= t.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const up = rows[i - 1] as number[];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[s.length]?.[t.length] ?? Math.max(s.length, t.length);
}

/** The closest candidate within a few edits (fewer for short words), as [word, suggestion]. */
export function closest(word: string, candidates: Iterable<readonly [string, string]>): string | undefined {
  const w = word.toLowerCase();
  const length = Array.from(w).length;
  if (length === 0 || length > 40) return undefined;
  const limit = length <= 4 ? 1 : length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const [candidate, suggestion] of candidates) {
    const d = editDistance(w, candidate);
    if (d <= limit && d < length && d < bestDistance) {
      best = suggestion;
      bestDistance = d;
    }
  }
  return best;
}

export const didYouMean = (suggestion: string | undefined): string =>
  suggestion === undefined ? '' : ` Did you mean ${code(suggestion)}?`;

// --- Cutting and quoting -------------------------------------------------------

/**
 * Bidi controls (embeddings, overrides, isolates, marks) and zero-width characters, which
 * can make one URL or name look like another. A zero-width joiner between two emoji
 * joins them into one (👩‍💻) and is kept.
 */
const INVISIBLE =
  /[\u061C\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|(?<!\p{Extended_Pictographic}\uFE0F?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;

/** Every character INVISIBLE may remove: text with none of them is left as it is, without the replace. */
const MAYBE_INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/** Text from outside with what would disguise it removed. */
export function neutralize(text: string): string {
  return MAYBE_INVISIBLE.test(text) ? text.replace(INVISIBLE, '') : text;
}

/** At most `max` code points (never half an emoji), ending in "…" when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  if (max <= 0) return '';
  return `${points
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`;
}

/** User input made fit for a one-line code span: one line, no backticks, at most `max` code points. */
export function quoteInput(text: string, max = 40): string {
  return clip(String(text).replace(/\s+/g, ' ').replace(/`/g, "'"), max);
}

/** User input as an inline code span. Not escaped: the message it goes into is escaped whole. */
export function code(text: string, max = 40): string {
  return `\`${quoteInput(text, max)}\``;
}

// --- Ids, mentions, durations ---------------------------------------------------

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A visitor or visit id: safe as one URL path segment (no slash, no leading dot, no `..`). */
export function isSafeId(id: unknown): id is string {
  return typeof id === 'string' && ID.test(id) && !id.startsWith('.') && !id.includes('..');
}

export interface ChannelRef {
  /** From a `<#C…|name>` mention. */
  id?: string;
  /** As typed after `#`, or the mention's label. */
  name?: string;
}

/** Slack's shape of a user id. */
export const USER_ID = /^[UW][A-Z0-9_]{2,}$/;

/** Slack's shape of a channel id. */
export const CHANNEL_ID = /^[CGD][A-Z0-9_]{2,}$/;

/** What Lookout writes into buttons and forms and reads back, as zod schemas: the same limits as the command language. */
export const SafeId = z.string().refine(isSafeId, 'not an id');
export const ChannelId = z.string().regex(CHANNEL_ID);
/** A row id of ours (a digest's): 1 to 2^31 − 1, digits only. */
export const RowId = z
  .string()
  .regex(/^[1-9]\d{0,9}$/)
  .transform(Number)
  .pipe(z.number().max(2_147_483_647));

/** `<#C123|general>` or `#general` → the channel; anything else → undefined. */
export function channelRef(token: string): ChannelRef | undefined {
  const mention = /^<#([CG][A-Z0-9_]+)(?:\|([^>]*))?>$/.exec(token);
  if (mention) return { id: mention[1], name: mention[2] };
  if (/^#[\w.-]+$/.test(token)) return { name: token.slice(1) };
  return undefined;
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

/**
 * `500ms`, `60s`, `5m`, `5 min`, `6h`, `1d`, `2w` → milliseconds. A bare number takes
 * `bare` as its unit (none given: a unit is required). Anything else → undefined.
 */
export function parseDuration(
  text: string,
  bare?: DurationUnit,
): { ms: number; n: number; unit: DurationUnit } | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d|w)?\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2]?.toLowerCase() ?? bare) as DurationUnit | undefined;
  if (unit === undefined) return undefined;
  const n = Number(m[1]);
  return { ms: n * UNIT_MS[unit], n, unit };
}

/** What any bad command gets: one line saying what was wrong (user input in backticks, not yet escaped) and the usage. */
export interface UsageError {
  kind: 'error';
  message: string;
  usage: string;
}

/** The most a count threshold may be (a watch's `above`/`below`): far past any site's visits, and finite. */
export const MAX_COUNT = 1_000_000_000;

/**
 * A number a person typed: plain digits with an optional decimal part (no exponent, no sign),
 * within [min, max] (whole numbers only when `integer`). Anything else → undefined.
 */
export function boundedNumber(
  text: string | undefined,
  bounds: { min: number; max: number; integer?: boolean },
): number | undefined {
  if (text === undefined || !/^\d{1,15}(\.\d{1,6})?$/.test(text)) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < bounds.min || n > bounds.max) return undefined;
  return bounds.integer && !Number.isInteger(n) ? undefined : n;
}

/** How long a mute may last, at most (or `forever`). */
export const MAX_MUTE_MS = 365 * 86_400_000;

/** How long a mute lasts: minutes, hours, days or weeks, from a minute to a year; `forever` → null; anything else → undefined. */
export function parseMuteDuration(text: string): number | null | undefined {
  if (/^(forever|always|permanently)$/i.test(text)) return null;
  const duration = parseDuration(text);
  if (!duration || !['m', 'min', 'h', 'd', 'w'].includes(duration.unit)) return undefined;
  return Number.isInteger(duration.n) && duration.ms >= 60_000 && duration.ms <= MAX_MUTE_MS ? duration.ms : undefined;
}
