import { seal } from '../../../src/platform/slack/kit/seal.js';
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import type { AggregateRow } from '../../../src/platform/api/schemas.js';
import type { VisitRecord } from '../../../src/kernel/records.js';
import { resolveRange } from '../../../src/kernel/range-dates.js';
import { newQuery, type ReportQuery } from '../../../src/kernel/query.js';
import { validateBlocks, validateMessage } from '../../../src/slack-rules/validate.js';
import { escapeMrkdwn } from '../../../src/platform/slack/kit/escape.js';
import { clip, clipMrkdwn, withinChars } from '../../../src/platform/slack/kit/limits.js';
import { decodeContext, drillModal, filterModal, sealedPart } from '../../../src/features/reports/modals.js';
import { reportMessage, type ReportView } from '../../../src/features/reports/blocks.js';
import { describeFilters } from '../../../src/platform/slack/kit/filter-words.js';
import { problemMessage, usageMessage } from '../../../src/platform/slack/kit/messages.js';
import { mrkdwnOf, tableOf } from '../../support/sandbox.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const range = (() => {
  const r = resolveRange('last7d', 'UTC', NOW);
  if (!r.ok) throw new Error(r.error);
  return r.range;
})();

function view(overrides: Partial<ReportView> & { rows: ReportView['rows'] }): ReportView {
  const query: ReportQuery = overrides.query ?? newQuery(overrides.def?.id ?? 'campaigns');
  return {
    def: REPORTS[query.report],
    query,
    range,
    refs: { current: 'q1.cur', block: 'q1.cur', next: 'q1.next' },
    timeZone: 'UTC',
    apiZone: 'UTC',
    now: NOW,
    demo: false,
    ephemeral: true,
    ...overrides,
  };
}

const row = (name: string, visits: number): AggregateRow => ({
  name,
  label: undefined,
  id: undefined,
  total_visits: visits,
  unique_visitors: Math.ceil(visits / 2),
  average_duration: 92,
});

describe('escapeMrkdwn', () => {
  it('escapes exactly &, < and >', () => {
    expect(escapeMrkdwn('<!channel> & <https://x|y> *b* _i_')).toBe(
      '&lt;!channel&gt; &amp; &lt;https://x|y&gt; *b* _i_',
    );
  });
});

describe('clip and clipMrkdwn', () => {
  it('cuts by code points and never splits an emoji', () => {
    expect(clip('🚀🚀🚀🚀', 3)).toBe('🚀🚀…');
    expect(clip('short', 10)).toBe('short');
  });
  it('never leaves half an entity or half a link', () => {
    expect(clipMrkdwn('abc &amp; def', 7)).toBe('abc …');
    expect(clipMrkdwn('see <https://example.com|here> now', 12)).toBe('see …');
  });
  it('counts a budget in code points: emoji over it in UTF-16 units still fit', () => {
    expect(clipMrkdwn('🚀🚀🚀', 3)).toBe('🚀🚀🚀');
    expect(withinChars(['🚀🚀', '🚀'], 3)).toBe(true);
    expect(withinChars(['🚀🚀', '🚀🚀'], 3)).toBe(false);
  });
});

describe('reportMessage', () => {
  it('renders a table: header row, formatted cells, a bar against the most visits', () => {
    const message = reportMessage(view({ rows: [row('spring_sale', 200), row('winter', 50)] }));
    const table = tableOf(message);
    expect(table[0]).toEqual(['Name', 'Visits', 'Unique', 'Avg time', 'vs most visits']);
    expect(table[1]).toEqual(['spring_sale', '200', '100', '1m 32s', '██████████']);
    expect(table[2]![4]).toBe('██▌');
    expect(message.text).toMatch(/^Campaigns, Last 7 days.*: spring_sale 200, winter 50$/);
  });

  it('answers in a data_table that Slack sorts by value: numbers are raw_number with the formatted text, one client page per Lookout page', () => {
    const rows = Array.from({ length: 25 }, (_, i) => row(`campaign ${i}`, 12_000 - i * 400));
    const message = reportMessage(view({ query: { ...newQuery('campaigns'), top: 25 }, rows }));
    const table = message.blocks.find((b) => b.type === 'data_table') as {
      page_size: number;
      caption: string;
      rows: { type: string; value?: number; text: string }[][];
    };
    expect(table.page_size).toBe(25);
    expect(table.caption).toBe('Campaigns: Name, Visits, Unique, Avg time');
    expect(table.rows[1]!.map((c) => c.type)).toEqual([
      'raw_text',
      'raw_number',
      'raw_number',
      'raw_number',
      'raw_text',
    ]);
    expect(table.rows[1]![1]).toEqual({ type: 'raw_number', value: 12_000, text: '12,000' });
    expect(table.rows[1]![3]).toEqual({ type: 'raw_number', value: 92, text: '1m 32s' });
    expect(validateMessage(message)).toEqual({ ok: true });
    expect(mrkdwnOf(message)[0]).not.toMatch(/columns:/);
  });

  it('falls back to the plain table when the page would pass the data_table character budget', () => {
    const rows = Array.from({ length: 90 }, (_, i) => row(`${'n'.repeat(150)}${i}`, 1000 - i));
    const message = reportMessage(view({ query: { ...newQuery('campaigns'), top: 90 }, rows }));
    expect(message.blocks.map((b) => b.type)).toContain('table');
    expect(message.blocks.map((b) => b.type)).not.toContain('data_table');
    expect(validateMessage(message)).toEqual({ ok: true });
  });

  it('shows API strings in raw_text cells as they are, and escapes them wherever mrkdwn is used', () => {
    const hostile = '<!channel> launch';
    const query = {
      ...newQuery('campaigns'),
      filters: [{ filters: [{ object: 'campaign', field: 'name', operator: 'is_any_of' as const, value: [hostile] }] }],
    };
    const message = reportMessage(view({ query, rows: [row(hostile, 3), row('<https://evil.example|click>', 1)] }));
    expect(tableOf(message).flat()).toContain(hostile);
    for (const text of mrkdwnOf(message)) expect(text).not.toMatch(/<!channel>|<https:/);
    expect(mrkdwnOf(message)[0]).toContain('&lt;!channel&gt; launch');
    expect(message.text).not.toContain('<!channel>');
  });

  it('stays within Slack limits with 100 rows of 3,000-character names and emoji', () => {
    const long = '🚀'.repeat(10) + 'x'.repeat(3000);
    const rows = Array.from({ length: 100 }, (_, i) => row(`${long}${i}`, 1000 - i));
    const query = {
      ...newQuery('campaigns'),
      top: 100,
      filters: [{ filters: [{ object: 'campaign', field: 'name', operator: 'contains' as const, value: long }] }],
    };
    const message = reportMessage(
      view({ query, rows, refs: { current: 'x'.repeat(2000), block: 'y'.repeat(250), next: 'z'.repeat(2000) } }),
    );
    const verdict = validateMessage(message);
    expect(verdict).toEqual({ ok: true });
    // All 100 rows are kept: the header row gives way, and the context line names the columns.
    expect(tableOf(message)).toHaveLength(100);
    expect(tableOf(message)[99]![1]).toBe('901');
    expect(mrkdwnOf(message)[0]).toMatch(/columns: Name, Visits, Unique, Avg time/);
    expect(message.text.length).toBeLessThanOrEqual(3000);
  });

  it('offers Next only when the page was full, Prev only past page 1, and Post to channel only when ephemeral', () => {
    const first = reportMessage(view({ rows: [row('a', 1)], refs: { current: 'c', block: 'c' }, ephemeral: false }));
    const json = JSON.stringify(first.blocks);
    expect(json).not.toContain('report.next');
    expect(json).not.toContain('report.prev');
    expect(json).not.toContain('report.share');
    const later = reportMessage(
      view({ rows: [row('a', 1)], refs: { current: 'c', block: 'c', prev: 'p', next: 'n' } }),
    );
    expect(JSON.stringify(later.blocks)).toMatch(/report\.prev.*report\.next.*report\.share/);
  });

  it("sorted by time spent, the bars are still each row's visits against the most visits, and the heading says so (issue 34)", () => {
    // The top row by time spent has the fewest visits: its bar is the thinnest, so "vs top row" would be false.
    const rows = [
      { ...row('slow', 20), average_duration: 600 },
      { ...row('middle', 100), average_duration: 300 },
      { ...row('busy', 400), average_duration: 30 },
    ];
    const query: ReportQuery = { ...newQuery('campaigns'), sort: { key: 'average_duration', dir: 'desc' } };
    const table = tableOf(reportMessage(view({ query, rows, barMax: 400 })));
    expect(table[0]!.at(-1)).toBe('vs most visits');
    expect(table.slice(1).map((r) => [r[0], r.at(-1)])).toEqual([
      ['slow', '▌'],
      ['middle', '██▌'],
      ['busy', '██████████'],
    ]);
    // A full page in the plain table has no header row: the context line names the bar column too.
    const many = Array.from({ length: 100 }, (_, i) => row(`${'n'.repeat(150)}${i}`, 1000 - i));
    const headless = reportMessage(view({ query: { ...newQuery('campaigns'), top: 100 }, rows: many }));
    expect(mrkdwnOf(headless)[0]).toContain('columns: Name, Visits, Unique, Avg time, vs most visits');
  });

  it("names the API's days in the API's zone, and times in the reader's (issue 34)", () => {
    const berlin = { timeZone: 'Europe/Berlin', apiZone: 'UTC' };
    const sources = mrkdwnOf(reportMessage(view({ ...berlin, rows: [row('google', 5)] })))[0]!;
    expect(sources).toContain(' · days in UTC, as the analytics API counts them');
    expect(sources).not.toMatch(/Europe\/Berlin|times in/);
    const visit: VisitRecord = {
      id: 'vs_1',
      visitor_id: 'v_1',
      date: '2026-11-20T23:30:00Z',
      url: 'https://a.example/',
    };
    const visits = reportMessage(view({ ...berlin, query: newQuery('visits'), rows: [visit] }));
    expect(mrkdwnOf(visits)[0]).toContain(' · days in UTC, as the analytics API counts them · times in Europe/Berlin');
    expect(tableOf(visits)[1]![0]).toBe('Nov 21, 00:30');
  });

  it('says so when there is no data, and marks demo data', () => {
    const message = reportMessage(view({ rows: [], demo: true }));
    expect(tableOf(message)).toEqual([]);
    expect(mrkdwnOf(message).join(' ')).toMatch(/No data for this range/);
    expect(mrkdwnOf(message)[0]).toMatch(/demo data/);
  });

  it('renders pages by path and visits by their own columns', () => {
    const pages = reportMessage(
      view({
        query: newQuery('pages'),
        rows: [{ full_url: 'https://shop.example/blog/a?x=1', total: 5, visitors: 4, avg_duration: 30 }],
      }),
    );
    expect(tableOf(pages)[1]).toEqual(['/blog/a?x=1', '5', '4', '30s', '██████████']);
    const visit: VisitRecord = {
      id: 'vs_1',
      visitor_id: 'v_1',
      date: '2026-11-20T08:05:00Z',
      url: 'https://shop.example/',
      location: { country: 'Germany' },
      browser: { name: 'Firefox' },
    };
    const visits = reportMessage(view({ query: newQuery('visits'), rows: [visit] }));
    expect(tableOf(visits)).toEqual([
      ['Date', 'Visitor', 'Page', 'Country', 'Browser'],
      ['Nov 20, 08:05', 'v_1', '/', 'Germany', 'Firefox'],
    ]);
  });

  it('keeps the current range and sort selected in the menus', () => {
    const query: ReportQuery = { ...newQuery('countries', 'last30d'), sort: { key: 'name', dir: 'asc' } };
    const message = reportMessage(view({ query, rows: [row('a', 1)] }));
    const json = JSON.stringify(message.blocks);
    expect(json).toMatch(/"initial_option":\{"text":\{"type":"plain_text","text":"Last 30 days"/);
    expect(json).toMatch(/"initial_option":\{"text":\{"type":"plain_text","text":"Name ↑"/);
  });
});

describe('the sort menu', () => {
  it('offers each order once: visits have "Newest first", not also "Date ↓"', () => {
    for (const id of ['visits', 'visitors', 'sources', 'pages'] as const) {
      const message = reportMessage(view({ query: newQuery(id), rows: [] }));
      const menu = JSON.stringify(message.blocks).match(/"action_id":"report\.sort".*?"options":(\[.*?\])/)?.[1];
      const labels = (JSON.parse(menu ?? '[]') as { text: { text: string } }[]).map((o) => o.text.text);
      expect(labels.length, id).toBeGreaterThan(1);
      expect(new Set(labels).size, id).toBe(labels.length);
      if (id === 'visits') expect(labels.filter((l) => /Newest|Date ↓/.test(l))).toEqual(['Newest first']);
    }
  });
});

describe('describeFilters', () => {
  it('describes AND inside groups and OR across them', () => {
    expect(
      describeFilters([
        {
          filters: [
            { object: 'country', field: 'name', operator: 'is_any_of', value: ['DE', 'FR'] },
            { object: 'page', field: 'url', operator: 'contains', value: '/blog' },
          ],
        },
        { filters: [{ object: 'browser', field: 'name', operator: 'is_any_of', value: ['Firefox'] }] },
      ]),
    ).toBe('country is `DE` or `FR` and page url contains `/blog` *or* browser is `Firefox`');
  });
});

describe('modals and messages', () => {
  const sealer = seal('test-signing-secret', 'modal-context');
  const bare = { ref: 'q1.x', responseUrl: 'http://127.0.0.1/response/1', replaceOriginal: true };
  const here = { team: 'T1', enterprise: 'E1' };
  const context = { ...bare, tag: sealer.tag(sealedPart(bare), here) };

  it('the filter modal lists each filter with its own Remove and is a valid modal', () => {
    const query: ReportQuery = {
      ...newQuery('countries'),
      filters: [
        { filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['<b>'] }] },
        { filters: [{ object: 'os', field: 'name', operator: 'is_any_of', value: ['iOS'] }] },
      ],
    };
    const modal = filterModal(REPORTS.countries, query, context);
    const json = JSON.stringify(modal.blocks);
    expect(json).toContain('filter.remove.0.0');
    expect(json).toContain('filter.remove.1.0');
    expect(json).toContain('&lt;b&gt;');
    expect(validateBlocks(modal.blocks as never, 'modal')).toEqual({ ok: true });
    expect(decodeContext(modal.private_metadata, sealer, here)).toEqual(context);
  });

  it('a modal context whose response_url or tag was changed, sealed with another key, or read in another workspace, is refused', () => {
    const metadata = JSON.parse(
      filterModal(REPORTS.countries, newQuery('countries'), context).private_metadata!,
    ) as Record<string, unknown>;
    expect(decodeContext(JSON.stringify({ ...metadata, u: 'https://evil.example/collect' }), sealer, here)).toBeNull();
    expect(decodeContext(JSON.stringify({ ...metadata, e: false }), sealer, here)).toBeNull();
    expect(decodeContext(JSON.stringify({ ...metadata, t: 'A'.repeat(22) }), sealer, here)).toBeNull();
    expect(decodeContext(JSON.stringify({ ...metadata, t: undefined }), sealer, here)).toBeNull();
    expect(decodeContext(JSON.stringify(metadata), seal('another-secret', 'modal-context'), here)).toBeNull();
    expect(decodeContext(JSON.stringify(metadata), sealer, { team: 'T2', enterprise: 'E1' })).toBeNull();
    expect(decodeContext(JSON.stringify(metadata), sealer, { team: 'T1' })).toBeNull();
    expect(decodeContext(JSON.stringify(metadata), sealer, here)).toEqual(context);
  });

  it('the drill-down modal offers the rows and preselects a sensible report', () => {
    const modal = drillModal(REPORTS, REPORTS.countries, [row('Germany', 3), row('France', 2)], context);
    const json = JSON.stringify(modal.blocks);
    expect(json).toContain('"text":"Germany"');
    expect(json).toMatch(/"initial_option":\{"text":\{"type":"plain_text","text":"States"/);
    expect(validateBlocks(modal.blocks as never, 'modal')).toEqual({ ok: true });
  });

  it('problem and usage messages escape what they are given', () => {
    expect(mrkdwnOf(problemMessage('bad <!here> thing')).join(' ')).toContain('&lt;!here&gt;');
    expect(mrkdwnOf(usageMessage('Unknown report `<x>`', '/traffic <report>')).join(' ')).not.toMatch(/<x>|<report>/);
  });
});
