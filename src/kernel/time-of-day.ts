/**
 * Times of day as people type them ("9am", "9:30 pm", "21:00", "noon"), read from a
 * command's tokens or a form field into HH:MM on the 24-hour clock. A near miss gets "Did
 * you mean …?"; a number out of bounds is told the bounds. Pure.
 */
import { pad } from './dates.js';
import { code, didYouMean, editDistance, plainTokens, type Token } from './text.js';

/** A time of day on the 24-hour clock; `text` is HH:MM. */
export interface TimeOfDay {
  hour: number;
  minute: number;
  text: string;
}

export type TimeRead = { ok: true; time: TimeOfDay; consumed: number } | { ok: false; error: string; consumed: number };

/** Times of day said in words. */
export const TIME_WORDS: Readonly<Record<string, string>> = { noon: '12:00', midnight: '00:00' };

const MERIDIEMS = ['am', 'pm', 'a.m.', 'p.m.'] as const;
const H24 = /^(\d{1,2}):(\d{2})$/;
const H12 = /^(\d{1,2})(?::(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)$/;
const TIME_ISH = /^(\d{1,4})(?:([:.h])(\d{0,2}))?\s?([a-z.]*)$/;

const clockText = (hour: number, minute: number) => `${pad(hour)}:${pad(minute)}`;
const time = (hour: number, minute: number): TimeOfDay => ({ hour, minute, text: clockText(hour, minute) });

/** 9:30pm, 9am, 12pm (noon), 12am (midnight). */
export function twelveHour({ hour, minute }: Pick<TimeOfDay, 'hour' | 'minute'>): string {
  const h = hour % 12 === 0 ? 12 : hour % 12;
  return `${h}${minute === 0 ? '' : `:${pad(minute)}`}${hour < 12 ? 'am' : 'pm'}`;
}

const BOUNDS = 'hours go from 00 to 23 (1 to 12 with am or pm) and minutes from 00 to 59';

/** What a near miss of a time meant, if it can be told. */
function timeNearMiss(text: string, phrase: string): string | undefined {
  const m = TIME_ISH.exec(phrase);
  if (!m) return undefined;
  const [, digits = '', sep, mins, suffix = ''] = m;
  const meridiem = /^[ap]/.test(suffix)
    ? MERIDIEMS.find((w) => w[0] === suffix[0] && editDistance(suffix, w) <= 1)
    : undefined;
  if (suffix !== '' && meridiem === undefined) return undefined;
  let hour = Number(digits);
  let minute = mins === undefined || mins === '' ? 0 : Number(mins);
  if (sep === undefined && digits.length >= 3) {
    hour = Number(digits.slice(0, -2));
    minute = Number(digits.slice(-2));
  } else if (digits.length > 2) return undefined;
  const said = code(text);
  if (meridiem !== undefined) {
    const pm = meridiem.startsWith('p');
    if (hour >= 1 && hour <= 12 && minute <= 59)
      return `${said} is not a time of day.${didYouMean(twelveHour({ hour: (hour % 12) + (pm ? 12 : 0), minute }))}`;
    if (hour <= 23 && minute <= 59)
      return `With am or pm the hour goes from 1 to 12: ${said} is not a time of day.${didYouMean(clockText(hour, minute))}`;
    return `${said} is not a time of day: ${BOUNDS}.`;
  }
  if (sep === undefined && digits.length <= 2) {
    return hour <= 23
      ? `${said} needs minutes or am/pm: \`${clockText(hour, 0)}\`${hour >= 1 && hour <= 12 ? `, \`${hour}am\` or \`${hour}pm\`` : ''}.`
      : `${said} is not a time of day: ${BOUNDS}.`;
  }
  if (hour === 24 && minute === 0) return `${said} is not a time of day: ${BOUNDS}. Midnight is \`00:00\`.`;
  if (hour > 23 || minute > 59) return `${said} is not a time of day: ${BOUNDS}.`;
  return `${said} is not a time of day.${didYouMean(clockText(hour, minute))}`;
}

function readTimePhrase(text: string): { ok: true; time: TimeOfDay } | { ok: false; error: string } | undefined {
  const phrase = text.toLowerCase();
  if (Object.hasOwn(TIME_WORDS, phrase)) {
    const [h, m] = TIME_WORDS[phrase]!.split(':').map(Number);
    return { ok: true, time: time(h!, m!) };
  }
  const h24 = H24.exec(phrase);
  if (h24 && Number(h24[1]) <= 23 && Number(h24[2]) <= 59)
    return { ok: true, time: time(Number(h24[1]), Number(h24[2])) };
  const h12 = H12.exec(phrase);
  if (h12) {
    const hour = Number(h12[1]);
    const minute = Number(h12[2] ?? 0);
    if (hour >= 1 && hour <= 12 && minute <= 59)
      return { ok: true, time: time((hour % 12) + (h12[3]!.startsWith('p') ? 12 : 0), minute) };
  }
  const miss = timeNearMiss(text, phrase);
  return miss === undefined ? undefined : { ok: false, error: miss };
}

/**
 * The time of day that starts at `tokens[at]` (one token, or two: "9 am"): HH:MM and how
 * many tokens it took, or an error when the words are a time's near miss ("9amm", "25:00",
 * "9"). Undefined when they are not a time.
 */
export function readTime(tokens: readonly Token[], at: number): TimeRead | undefined {
  const first = tokens[at];
  if (first?.word === undefined) return undefined;
  const second = tokens[at + 1];
  if (/^\d/.test(first.word) && second?.word !== undefined && /^[a-z.]{1,5}$/.test(second.word)) {
    const read = readTimePhrase(`${first.text} ${second.text}`);
    if (read) return { ...read, consumed: 2 };
  }
  const read = readTimePhrase(first.text);
  return read ? { ...read, consumed: 1 } : undefined;
}

/** A whole text as a time of day (a form field): HH:MM, or what is wrong. */
export function parseTimeOfDay(text: string): { ok: true; time: TimeOfDay } | { ok: false; error: string } {
  const tokens = plainTokens(text);
  if (tokens.length === 0) return { ok: false, error: 'At what time? Say 09:00, 21:30, 9am or 9:30pm.' };
  const read = readTime(tokens, 0);
  if (read?.ok && read.consumed === tokens.length) return { ok: true, time: read.time };
  if (read && !read.ok) return read;
  return { ok: false, error: `${code(String(text).trim())} is not a time of day: say 09:00, 21:30, 9am or 9:30pm.` };
}

/** The ways a time of day can be said, each of which reads back as it. */
export function timeWords({ hour, minute }: Pick<TimeOfDay, 'hour' | 'minute'>): string[] {
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const am = hour < 12;
  const words = [
    clockText(hour, minute),
    `${hour}:${pad(minute)}`,
    twelveHour({ hour, minute }),
    `${h12}:${pad(minute)} ${am ? 'AM' : 'PM'}`,
    `${h12}:${pad(minute)}${am ? 'a.m.' : 'p.m.'}`,
  ];
  if (minute === 0) words.push(`${h12} ${am ? 'am' : 'pm'}`, `${h12}${am ? 'AM' : 'PM'}`);
  for (const [word, text] of Object.entries(TIME_WORDS)) if (text === clockText(hour, minute)) words.push(word);
  return [...new Set(words)];
}
