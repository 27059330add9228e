import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { durationInWords } from '../../../src/kernel/format.js';
import { neutralize } from '../../../src/kernel/text.js';
import { decodeMenuChoice } from '../../../src/features/reports/blocks.js';
import { shortestGap } from '../../../src/features/digests/cron.js';
import { escapeMrkdwn, fallbackText } from '../../../src/platform/slack/kit/escape.js';
import { cell, plainText } from '../../../src/platform/slack/kit/limits.js';
import { helpMessage, infoMessage, problemMessage, usageMessage } from '../../../src/platform/slack/kit/messages.js';

const DISGUISE = /[\u061C\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

describe('neutralize', () => {
  it('removes bidi controls and zero-width characters, so one URL cannot pose as another', () => {
    expect(neutralize('https://example.com/\u202Etxt.exe\u202C')).toBe('https://example.com/txt.exe');
    expect(neutralize('pay\u200Bpal.com \u2066x\u2069 \uFEFFa\u200Eb\u200F')).toBe('paypal.com x ab');
    expect(neutralize('a\u200Db')).toBe('ab');
  });

  it('keeps emoji joined by a zero-width joiner, and everything else as it was', () => {
    expect(neutralize('👩\u200D💻 and 👨\u200D👩\u200D👧')).toBe('👩\u200D💻 and 👨\u200D👩\u200D👧');
    expect(neutralize('Zürich — 東京 · שלום')).toBe('Zürich — 東京 · שלום');
  });

  it('for any text: nothing disguising is left, and it is idempotent', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom('\u202E', '\u200B', '\u2066', '\u200D', '\uFEFF', '<', '&', 'a', '👩'),
            fc.string({ minLength: 1, maxLength: 1 }),
          ),
        }),
        (text) => {
          const once = neutralize(text);
          expect(once).not.toMatch(DISGUISE);
          expect(neutralize(once)).toBe(once);
        },
      ),
    );
  });
});

describe('one escaping path', () => {
  const hostile = '<!channel> <https://evil.example|click> &amp; \u202Eevil\u200B';

  it('mrkdwn and top-level text: mentions and links inert, disguise removed', () => {
    expect(escapeMrkdwn(hostile)).toBe('&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp;amp; evil');
    expect(fallbackText(hostile)).toBe(escapeMrkdwn(hostile));
    expect(fallbackText('x'.repeat(5000))).toHaveLength(3000);
  });

  it('plain_text and table cells: not escaped (never interpreted) but neutralized', () => {
    expect(plainText(hostile).text).toBe('<!channel> <https://evil.example|click> &amp; evil');
    expect(cell(hostile)).toEqual({ type: 'raw_text', text: '<!channel> <https://evil.example|click> &amp; evil' });
  });

  it('every kit message escapes its top-level text as its blocks', () => {
    for (const m of [
      problemMessage(hostile, hostile),
      infoMessage(hostile),
      usageMessage(hostile, hostile),
      helpMessage([hostile]),
    ]) {
      expect(m.text).not.toMatch(/<!|<https?:/);
      expect(m.text).not.toMatch(DISGUISE);
      expect(m.text).toContain('&lt;!channel&gt;');
    }
  });
});

describe('decodeMenuChoice', () => {
  it('takes the report’s own sorts and the ranges the command language knows', () => {
    expect(decodeMenuChoice('s:total_visits:desc', REPORTS.sources)).toEqual({
      ok: true,
      choice: { sort: { key: 'total_visits', dir: 'desc' } },
    });
    expect(decodeMenuChoice('r:last7d', REPORTS.sources)).toEqual({ ok: true, choice: { range: 'last7d' } });
    expect(decodeMenuChoice('r:2026-01-01..2026-01-31', REPORTS.sources)).toEqual({
      ok: true,
      choice: { range: '2026-01-01..2026-01-31' },
    });
  });

  it('refuses anything else with a message that says what is wrong', () => {
    for (const value of [
      's:password; DROP TABLE x:asc',
      's:password:asc',
      's:total_visits:sideways',
      'r:forever',
      'r:2026-02-30',
      '',
      'x',
      42,
      null,
      undefined,
      'r:'.padEnd(200, 'x'),
    ]) {
      const decoded = decodeMenuChoice(value, REPORTS.sources);
      expect(decoded.ok, String(value)).toBe(false);
      if (!decoded.ok) expect(decoded.error.length).toBeGreaterThan(5);
    }
    expect(decodeMenuChoice('s:password:asc', REPORTS.sources)).toEqual({
      ok: false,
      error: '`password` is not a way to sort Sources; pick one from the menu.',
    });
  });
});

describe('shortestGap and durationInWords', () => {
  const from = new Date('2026-11-23T12:00:00Z');
  it('finds the shortest time between runs of a cron expression', () => {
    expect(shortestGap('* * * * *', 'UTC', from)).toBe(60_000);
    expect(shortestGap('*/30 * * * *', 'UTC', from)).toBe(1_800_000);
    expect(shortestGap('0 9,10 * * *', 'Europe/Berlin', from)).toBe(3_600_000);
    expect(shortestGap('0 9 * * 1', 'UTC', from)).toBe(7 * 86_400_000);
    expect(shortestGap('0 9 * * 1-5', 'UTC', from)).toBe(86_400_000);
    expect(shortestGap('0 0 1 1 *', 'UTC', from, 0, 3)).toBeGreaterThanOrEqual(365 * 86_400_000);
  });

  it('says a span in words', () => {
    expect([60_000, 120_000, 3_600_000, 86_400_000, 90_000, 1000, 5400_000].map(durationInWords)).toEqual([
      '1 minute',
      '2 minutes',
      '1 hour',
      '1 day',
      '90 seconds',
      '1 second',
      '90 minutes',
    ]);
  });
});
