/** Every number a person types is finite and bounded, and a number out of range is refused with the range (issue 26). */
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../src/kernel/catalog.js';
import { boundedNumber, MAX_COUNT, MAX_MUTE_MS, parseMuteDuration, tokenize } from '../../src/kernel/text.js';
import { parseWatchCommand } from '../../src/features/watches/parse.js';
import { parseAlertsCommand } from '../../src/features/alerts/parse.js';

const watch = (text: string) => {
  const tokens = tokenize(text);
  if ('error' in tokens) throw new Error(tokens.error);
  return parseWatchCommand(tokens, REPORTS);
};
const digits400 = '9'.repeat(400);

describe('boundedNumber', () => {
  it.each(['1e400', '-1e400', '1e3', 'Infinity', 'NaN', '-5', '0x10', '', ' 5', '1.', '.5', digits400])(
    'refuses %j',
    (text) => {
      expect(boundedNumber(text, { min: 0, max: MAX_COUNT })).toBeUndefined();
    },
  );
  it('takes plain numbers within the bounds, and whole ones when asked', () => {
    expect(boundedNumber('0', { min: 0, max: 10 })).toBe(0);
    expect(boundedNumber('10', { min: 0, max: 10 })).toBe(10);
    expect(boundedNumber('10.5', { min: 0, max: 10 })).toBeUndefined();
    expect(boundedNumber('2.5', { min: 0, max: 10, integer: true })).toBeUndefined();
  });
});

describe('watch thresholds and changes', () => {
  it.each(['above 1e400', 'below -1e400', `above ${digits400}`, `above ${MAX_COUNT + 1}`])(
    'visits %s is refused, naming the range',
    (rule) => {
      const parsed = watch(`visits ${rule}`);
      expect(parsed.kind).toBe('error');
      expect('message' in parsed && parsed.message).toMatch(/a number from 0 to 1,000,000,000/);
    },
  );
  it('a share is 0–100%, a change above 0% and at most 1,000%', () => {
    expect(watch('bots above 101%').kind).toBe('error');
    expect(watch('bots above 100%').kind).toBe('add');
    expect(watch('visits drops 0%').kind).toBe('error');
    expect(watch('visits rises 1001%').kind).toBe('error');
    expect(watch(`visits rises ${digits400}%`).kind).toBe('error');
    expect(watch('visits rises 1000%').kind).toBe('add');
  });
  it('the largest count is kept as it was typed, finite', () => {
    const parsed = watch(`visits above ${MAX_COUNT}`);
    expect(parsed.kind === 'add' && parsed.rule.condition).toEqual({ kind: 'above', value: MAX_COUNT });
  });
  it('a watch id past what the store holds is refused', () => {
    expect(watch('pause 99999999999').kind).toBe('error');
    expect(watch('pause 3')).toEqual({ kind: 'pause', id: 3 });
  });
});

describe('mute durations: a minute to a year, or forever', () => {
  it.each(['0m', '30s', '99999d', '53w', '1e9h', `${digits400}d`])('refuses %s', (text) => {
    expect(parseMuteDuration(text)).toBeUndefined();
    expect(watch(`mute 1 for ${text}`).kind).toBe('error');
    expect(parseAlertsCommand(['mute', 'v_1', 'for', text]).kind).toBe('error');
  });
  it('takes the edges and forever', () => {
    expect(parseMuteDuration('1m')).toBe(60_000);
    expect(parseMuteDuration('365d')).toBe(MAX_MUTE_MS);
    expect(parseMuteDuration('forever')).toBeNull();
    expect(watch('mute 1 for 7d')).toMatchObject({ kind: 'mute', forMs: 7 * 86_400_000, label: 'for 7 days' });
  });
});
