import { describe, expect, it } from 'vitest';
import { REPORTS, REPORT_IDS, type ReportDef } from '../../../src/kernel/catalog.js';
import type { FilterGroup } from '../../../src/kernel/filters.js';
import { previousPeriod, type DateRange } from '../../../src/kernel/dates.js';
import {
  validateBlocks,
  validateMessage,
  validateMessageText,
  validateView,
} from '../../../src/slack-rules/validate.js';
import {
  DIGEST_INPUTS,
  DIGEST_MODAL,
  digestModal,
  redrawDigestForm,
  type DigestFormValues,
} from '../../../src/features/digests/modal.js';
import {
  DIGEST_ACTIONS,
  digestList,
  digestMessage,
  digestSavedMessage,
  type DigestLine,
  type DigestListItem,
  type DigestSection,
  type DigestView,
} from '../../../src/features/digests/blocks.js';
import { securityLine } from '../../../src/features/digests/content.js';
import { planTrend, summarize } from '../../../src/kernel/trend.js';
import { colourOf, headerOf, mrkdwnOf, textsOf } from '../../support/sandbox.js';

type Json = Record<string, unknown>;

const PERIOD: DateRange = {
  startDate: '2026-11-13',
  endDate: '2026-11-19',
  label: 'The 7 days before today (Nov 13 – Nov 19, 2026)',
};
const PREVIOUS = previousPeriod(PERIOD);

const HOSTILE = [
  '<!channel> launch',
  '<https://evil.example|click me>',
  'Tom & Jerry <b>',
  '🚀'.repeat(20) + 'x'.repeat(3000),
  '<'.repeat(3000),
  '&'.repeat(3000),
  '*bold* _it_ ~strike~ `code`',
  '<@U123> <#C123> <!subteam^S1>',
  '',
  '👩‍👩‍👧‍👦 family 🇩🇪 flag',
];

function lines(count: number, seed = 0): DigestLine[] {
  return Array.from({ length: count }, (_, i) => ({
    name: HOSTILE[(i + seed) % HOSTILE.length]!,
    value: 1_000_000 - i * 1000,
    previous: i % 3 === 0 ? 0 : 900_000 - i,
    duration: 3600 * 30 + i,
  }));
}

function view(overrides: Partial<DigestView> = {}): DigestView {
  return {
    id: 7,
    title: 'Digest: Sources, Pages',
    period: PERIOD,
    previous: PREVIOUS,
    timeZone: 'Europe/Berlin',
    apiZone: 'UTC',
    filters: [],
    totals: { visits: 1120, unique: 380, previousVisits: 1000, previousUnique: 400 },
    sections: [],
    demo: false,
    preview: false,
    ...overrides,
  };
}

function expectValid(message: { text: string; blocks: unknown[] }): void {
  const verdict = validateMessage(message);
  expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
  expect(message.blocks.length).toBeLessThanOrEqual(50);
  expect(validateMessageText(message.text, message.blocks)).toMatchObject({ ok: true, truncated: false });
}

/** Each section block's own text (not its fields). */
function sectionTexts(message: { blocks: unknown[] }): string[] {
  return (message.blocks as Json[]).flatMap((b) =>
    (b.type === 'section' || b.type === 'alert') && b.text ? [(b.text as { text: string }).text] : [],
  );
}

/** The mrkdwn of the section whose first line is the report's title. */
function sectionOf(message: { blocks: unknown[] }, def: ReportDef): string {
  const found = sectionTexts(message).find((t) => t.startsWith(`*${def.title}*\n`));
  if (found === undefined) throw new Error(`no section for ${def.id}`);
  return found;
}

describe('digestMessage', () => {
  const all = REPORT_IDS.map((id) => REPORTS[id]);

  it('13 reports × 10 hostile, 3,000-character and emoji names, long filters: within Slack limits, every line shown', () => {
    const long = '🚀'.repeat(10) + 'x'.repeat(3000);
    const filters: FilterGroup[] = Array.from({ length: 5 }, () => ({
      filters: Array.from({ length: 10 }, () => ({
        object: 'campaign',
        field: 'name',
        operator: 'is_any_of' as const,
        value: [long, '<!here>'],
      })),
    }));
    const message = digestMessage(
      view({
        title: `Digest: ${all.map((d) => d.title).join(', ')} ${long}`,
        period: { ...PERIOD, label: `${PERIOD.label} ${long}` },
        filters,
        sections: all.map((def, i) => ({ def, lines: lines(10, i) })),
        security: `<!channel> 3 flagged visitors ${long}`,
        demo: true,
        preview: true,
      }),
    );
    expectValid(message);
    expect(message.blocks.length).toBe(4 + 13 + 1);
    for (const def of all) {
      const text = sectionOf(message, def);
      // Ten numbered lines: nothing was clipped away.
      expect(text.split('\n')).toHaveLength(11);
      expect(text).toMatch(/\n10\. /);
    }
  });

  it('escapes names, labels, filters and the security line in mrkdwn: no mention, link or broadcast survives', () => {
    const message = digestMessage(
      view({
        period: { ...PERIOD, label: '<!here> week' },
        filters: [{ filters: [{ object: 'campaign', field: 'name', operator: 'is_any_of', value: ['<!channel>'] }] }],
        sections: [{ def: REPORTS.campaigns, lines: lines(10) }],
        security: '<!everyone> & co',
      }),
    );
    expectValid(message);
    for (const text of mrkdwnOf(message)) {
      expect(text).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
    const campaigns = sectionOf(message, REPORTS.campaigns);
    expect(campaigns).toContain('1. &lt;!channel&gt; launch · *1,000,000* visits new · 1d 06h');
    expect(campaigns).toContain('2. &lt;https://evil.example|click me&gt;');
    expect(campaigns).toContain('3. Tom &amp; Jerry &lt;b&gt;');
    expect(campaigns).toContain('9. — ·'); // an empty name
    expect(mrkdwnOf(message).join('\n')).toContain(':shield: &lt;!everyone&gt; &amp; co');
    expect(message.text).not.toMatch(/<!/);
  });

  it('shows each line’s change: ▲ up, ▼ down, new where there was none, – unchanged, nothing when unknown', () => {
    const message = digestMessage(
      view({
        sections: [
          {
            def: REPORTS.sources,
            lines: [
              { name: 'up', value: 112, previous: 100, duration: 92 },
              { name: 'down', value: 95, previous: 100 },
              { name: 'fresh', value: 7, previous: 0 },
              { name: 'same', value: 50, previous: 50 },
              { name: 'unknown', value: 9 },
              { name: 'halved', value: 1500, previous: 3000 },
              { name: 'tiny', value: 1001, previous: 1000 },
            ],
          },
          {
            def: REPORTS.pages,
            lines: [{ name: 'https://example.com/pricing', value: 1234, previous: 1000, duration: 45 }],
          },
        ],
      }),
    );
    expectValid(message);
    expect(sectionOf(message, REPORTS.sources).split('\n')).toEqual([
      '*Sources*',
      '1. up · *112* visits ▲ 12% · 1m 32s',
      '2. down · *95* visits ▼ 5%',
      '3. fresh · *7* visits new',
      '4. same · *50* visits –',
      '5. unknown · *9* visits',
      '6. halved · *1,500* visits ▼ 50%',
      '7. tiny · *1,001* visits ▲ <1%',
    ]);
    expect(sectionOf(message, REPORTS.pages)).toBe(
      '*Pages*\n1. https://example.com/pricing · *1,234* visits ▲ 23% · 45s',
    );
  });

  it('headline totals with their change, the period in words, the digest number', () => {
    const message = digestMessage(view({ sections: [{ def: REPORTS.sources, lines: [] }] }));
    expectValid(message);
    expect(headerOf(message)).toBe('Digest: Sources, Pages');
    const texts = mrkdwnOf(message);
    expect(texts).toContain('*Visits*\n1,120  ▲ 12%');
    expect(texts).toContain('*Unique visitors*\n380  ▼ 5%');
    expect(texts[0]).toBe(
      'The 7 days before today (Nov 13 – Nov 19, 2026) · change against Nov 6 – Nov 12, 2026 · days in UTC, as the analytics API counts them · digest #7',
    );
    expect(sectionOf(message, REPORTS.sources)).toBe('*Sources*\n_No data in this period._');
    expect(message.text).toBe(
      'Digest: Sources, Pages: 1,120 visits ▲ 12% (The 7 days before today (Nov 13 – Nov 19, 2026))',
    );
  });

  it("a daily digest in Berlin: its figures are the API's day, its chart's hours Berlin's, each named so (issue 34)", () => {
    const day: DateRange = { startDate: '2026-11-24', endDate: '2026-11-24', label: 'Yesterday (Nov 24, 2026)' };
    const plan = planTrend(day);
    const values = Array.from({ length: 24 }, (_, h) => h);
    const message = digestMessage(
      view({
        period: day,
        previous: previousPeriod(day),
        sections: [{ def: REPORTS.visits, lines: [{ name: 'Nov 24, 23:30' }] }],
        trend: {
          plan,
          source: 'countries',
          partial: false,
          current: summarize(values, plan.buckets),
          previous: summarize(values, plan.previous),
        },
      }),
    );
    expectValid(message);
    expect(mrkdwnOf(message)[0]).toBe(
      'Yesterday (Nov 24, 2026) · change against Nov 23, 2026 · days in UTC, as the analytics API counts them · times in Europe/Berlin · digest #7',
    );
    const chart = (message.blocks as unknown as Json[]).find((b) => b.type === 'data_visualization') as {
      title: string;
      chart: { series: { name: string }[] };
    };
    expect(chart.title).toBe('Visits per hour (Europe/Berlin)');
    expect(chart.chart.series.map((s) => s.name)).toEqual(['Nov 24, 2026', 'Nov 23, 2026']);
  });

  it('totals that were zero before show "new"; demo and preview are marked', () => {
    const message = digestMessage(
      view({ totals: { visits: 10, unique: 0, previousVisits: 0, previousUnique: 0 }, demo: true, preview: true }),
    );
    const texts = mrkdwnOf(message);
    expect(texts).toContain('*Visits*\n10  new');
    expect(texts).toContain('*Unique visitors*\n0  –');
    expect(texts[0]).toMatch(/ · digest #7 · _demo data_ · _preview: only you see this_$/);
  });

  it('a report that failed says so in its section; the others still render', () => {
    const sections: DigestSection[] = [
      { def: REPORTS.sources, lines: [{ name: 'google', value: 10, previous: 5 }] },
      { def: REPORTS.pages, error: 'The analytics API failed (HTTP 500) <boom>' },
      { def: REPORTS.countries, lines: [{ name: 'Germany', value: 4, previous: 4 }] },
      { def: REPORTS.cities },
    ];
    const message = digestMessage(view({ sections }));
    expectValid(message);
    expect(sectionOf(message, REPORTS.pages)).toBe(
      '*Pages*\n:warning: Could not load: The analytics API failed (HTTP 500) &lt;boom&gt;',
    );
    expect(sectionOf(message, REPORTS.cities)).toBe('*Cities*\n:warning: Could not load: unknown error');
    // What failed is said again beside a warning-coloured bar; no alert block in a message.
    expect(JSON.stringify(message)).not.toContain('"type":"alert"');
    expect(colourOf(message)).toBe('warning');
    expect(mrkdwnOf({ attachments: message.attachments })).toEqual([
      ':warning: *Incomplete:* Pages, Cities could not be loaded; the rest of this digest is complete.',
    ]);
    expect(colourOf(digestMessage(view()))).toBeUndefined();
    expect(sectionOf(message, REPORTS.sources)).toBe('*Sources*\n1. google · *10* visits ▲ 100%');
    expect(sectionOf(message, REPORTS.countries)).toBe('*Countries*\n1. Germany · *4* visits –');
    // In the order given.
    expect(sectionTexts(message).map((t) => t.split('\n')[0])).toEqual([
      '*Sources*',
      '*Pages*',
      '*Countries*',
      '*Cities*',
    ]);
  });

  it('totals that failed say so, and the sections still render', () => {
    const message = digestMessage(
      view({
        totals: undefined,
        totalsError: 'timed out <after 10 s>',
        sections: [{ def: REPORTS.sources, lines: lines(3) }],
      }),
    );
    expectValid(message);
    expect(mrkdwnOf(message)).toContain(':warning: Totals could not be loaded: timed out &lt;after 10 s&gt;');
    expect(sectionOf(message, REPORTS.sources).split('\n')).toHaveLength(4);
    expect(message.text).toContain('totals unavailable');
    expect(textsOf(message).join('\n')).not.toContain('*Visits*');
  });
});

describe('digestList', () => {
  function item(i: number, overrides: Partial<DigestListItem> = {}): DigestListItem {
    return {
      id: i,
      channelId: `C${String(i).padStart(6, '0')}`,
      ownerId: 'U_ALICE',
      reports: ['sources', 'pages'],
      schedule: 'Mondays at 09:00 (Europe/Berlin)',
      nextRun: 'Nov 23, 09:00',
      lastRun: i % 2 === 0 ? 'failed Nov 16, 09:00 (channel_not_found)' : undefined,
      paused: i % 3 === 0,
      canManage: i % 4 !== 0,
      ...overrides,
    };
  }

  const actionsOf = (message: { blocks: unknown[] }, id: number) =>
    ((message.blocks as Json[]).find((b) => b.type === 'actions' && b.block_id === `digest_${id}`)?.elements ??
      []) as Json[];

  it('30 digests with 3,000-character texts stay within limits: 23 shown, the rest counted', () => {
    const hostile = (i: number) =>
      item(i, {
        reports: ['sources', 'pages', `<!here> ${'x'.repeat(3000)}`],
        schedule: `Mondays at 09:00 (Europe/Berlin) <!channel> ${'🚀'.repeat(500)}`,
        lastRun: i % 2 === 0 ? `failed Nov 16, 09:00 (channel_not_found <&>) ${'y'.repeat(3000)}` : undefined,
      });
    const message = digestList(
      Array.from({ length: 30 }, (_, i) => hostile(i + 1)),
      'in this workspace',
    );
    expectValid(message);
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(headerOf(message)).toBe('Digests in this workspace');
    expect(message.text).toBe('30 digests in this workspace');
    expect(actionsOf(message, 23)).not.toEqual([]);
    expect(actionsOf(message, 24)).toEqual([]);
    expect(mrkdwnOf(message).at(-1)).toMatch(/^…and 7 more\./);
    for (const text of mrkdwnOf(message)) expect(text).not.toMatch(/<!/);
  });

  it('a manager gets Pause (running) or Resume (paused), Edit and Remove with a confirm dialog', () => {
    const message = digestList(
      [item(1, { paused: false, canManage: true }), item(2, { paused: true, canManage: true })],
      'in #growth',
    );
    expectValid(message);
    const running = actionsOf(message, 1);
    expect(running.map((e) => e.action_id)).toEqual([
      DIGEST_ACTIONS.preview,
      DIGEST_ACTIONS.pause,
      DIGEST_ACTIONS.edit,
      DIGEST_ACTIONS.remove,
    ]);
    const paused = actionsOf(message, 2);
    expect(paused.map((e) => e.action_id)).toEqual([
      DIGEST_ACTIONS.preview,
      DIGEST_ACTIONS.resume,
      DIGEST_ACTIONS.edit,
      DIGEST_ACTIONS.remove,
    ]);
    expect(paused[1]).toMatchObject({ style: 'primary', value: '2', text: { text: 'Resume' } });
    const remove = running[3]!;
    expect(remove).toMatchObject({ style: 'danger', value: '1' });
    expect(remove.confirm).toMatchObject({
      title: { text: 'Remove this digest?' },
      text: { text: expect.stringContaining('Digest #1') },
      confirm: { text: 'Remove' },
      deny: { text: 'Keep it' },
      style: 'danger',
    });
    expect(mrkdwnOf(message)[0]).toMatch(/next Nov 23, 09:00/);
    expect(mrkdwnOf(message)[1]).toMatch(/:double_vertical_bar: paused/);
  });

  it('someone who may not manage it gets Preview only: no Pause, Resume, Edit or Remove', () => {
    const message = digestList(
      [item(1, { canManage: false }), item(2, { canManage: false, paused: true })],
      'in #growth',
    );
    expect(actionsOf(message, 1).map((e) => e.action_id)).toEqual([DIGEST_ACTIONS.preview]);
    expect(actionsOf(message, 2).map((e) => e.action_id)).toEqual([DIGEST_ACTIONS.preview]);
    expect(JSON.stringify(message.blocks)).not.toContain('"confirm"');
  });

  it('shows the channel, owner, schedule, next and last run', () => {
    const message = digestList(
      [item(5, { reports: ['sources'], schedule: 'every day at 09:00 (UTC)', lastRun: 'posted Nov 21, 09:00' })],
      'in #growth',
    );
    expect(mrkdwnOf(message)[0]).toBe(
      '*#5* in <#C000005> · sources\nevery day at 09:00 (UTC) · next Nov 23, 09:00 · last: posted Nov 21, 09:00 · owner <@U_ALICE>',
    );
    const never = digestList([item(6, { lastRun: undefined, nextRun: undefined, paused: false })], 'x');
    expect(mrkdwnOf(never)[0]).toContain('next unknown · last: never run');
  });

  it('no digests: says so and how to add one', () => {
    const message = digestList([], 'in <#C1> & co');
    expectValid(message);
    expect(mrkdwnOf(message)).toEqual(['No digests in &lt;#C1&gt; &amp; co. Add one with `/traffic digest add`.']);
  });
});

describe('digestModal', () => {
  const defs = REPORT_IDS.map((id) => REPORTS[id]);
  const values: DigestFormValues = {
    channelId: 'C_GROWTH',
    reports: ['sources', 'pages', 'countries'],
    schedule: { kind: 'weekly', weekday: 1, time: '09:00' },
    timeZone: 'Europe/Berlin',
    top: 5,
    filters: 'country:"United States" or page~/blog',
  };

  const element = (view: { blocks: unknown[] }, id: string) =>
    ((view.blocks as unknown as Json[]).find((b) => b.block_id === id)?.element ?? {}) as Json;

  function expectValidView(view: ReturnType<typeof digestModal>): void {
    const blocks = validateBlocks(view.blocks, 'modal');
    expect(blocks.ok ? [] : blocks.reasons).toEqual([]);
    const whole = validateView(view);
    expect(whole.ok ? [] : whole.reasons).toEqual([]);
    // What Slack shows in a text box must fit in it.
    for (const block of view.blocks as unknown as Json[]) {
      const el = block.element as Json | undefined;
      if (el?.type === 'plain_text_input' && typeof el.initial_value === 'string') {
        expect(Array.from(el.initial_value).length, String(block.block_id)).toBeLessThanOrEqual(
          el.max_length as number,
        );
      }
    }
  }

  it('a new digest: valid, every input of its schedule present with matching block and action ids', () => {
    const view = digestModal(defs, {
      reports: [],
      schedule: { kind: 'daily', time: '09:00' },
      timeZone: 'UTC',
      top: 5,
      filters: '',
    });
    expectValidView(view);
    expect(view.callback_id).toBe(DIGEST_MODAL);
    expect((view as unknown as Json).title).toMatchObject({ text: 'New digest' });
    expect((view as unknown as Json).submit).toMatchObject({ text: 'Create' });
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ id: null });
    const shown = DIGEST_INPUTS.filter((id) => !['weekday', 'monthday', 'cron'].includes(id));
    expect((view.blocks as unknown as Json[]).map((b) => b.block_id)).toEqual(shown);
    for (const id of shown) expect(element(view, id).action_id).toBe(id);
    // "How often" tells Lookout at once, so the form can show the fields of the schedule picked.
    expect((view.blocks as unknown as Json[]).find((b) => b.block_id === 'frequency')).toMatchObject({
      dispatch_action: true,
    });
    expect(element(view, 'reports').initial_options).toBeUndefined();
    expect(element(view, 'reports').options).toHaveLength(13);
    expect(element(view, 'filters').initial_value).toBeUndefined();
  });

  it('editing a digest: prefilled with what it has', () => {
    const view = digestModal(defs, values, 12);
    expectValidView(view);
    expect((view as unknown as Json).title).toMatchObject({ text: 'Edit digest #12' });
    expect((view as unknown as Json).submit).toMatchObject({ text: 'Save' });
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ id: 12 });
    expect(element(view, 'channel').initial_channel).toBe('C_GROWTH');
    expect((element(view, 'reports').initial_options as Json[]).map((o) => o.value)).toEqual([
      'sources',
      'pages',
      'countries',
    ]);
    expect((element(view, 'frequency').initial_option as Json).value).toBe('weekly');
    expect((element(view, 'weekday').initial_option as Json).value).toBe('1');
    expect(element(view, 'time').initial_value).toBe('09:00');
    expect(element(view, 'timezone').initial_value).toBe('Europe/Berlin');
    expect((element(view, 'top').initial_option as Json).value).toBe('5');
    expect(element(view, 'filters').initial_value).toBe(values.filters);
  });

  it('cron and monthly digests, and a top out of range, still make a valid form', () => {
    for (const schedule of [
      { kind: 'cron' as const, cron: '*/15 9-17 * * 1-5' },
      { kind: 'monthly' as const, monthday: 28, time: '23:59' },
      { kind: 'weekdays' as const, time: '07:30' },
    ]) {
      for (const top of [0, 1, 10, 99]) {
        const view = digestModal(defs, { ...values, schedule, top }, 987_654_321);
        expectValidView(view);
        expect((element(view, 'frequency').initial_option as Json).value).toBe(schedule.kind);
        expect((element(view, 'top').initial_option as Json).value).toBe(String(Math.min(10, Math.max(1, top))));
      }
    }
    expect(
      element(digestModal(defs, { ...values, schedule: { kind: 'cron', cron: '0 9 * * 1' } }), 'cron').initial_value,
    ).toBe('0 9 * * 1');
    expect(
      element(digestModal(defs, { ...values, schedule: { kind: 'monthly', monthday: 15, time: '09:00' } }), 'monthday')
        .initial_value,
    ).toBe('15');
  });

  it('shows only the fields of its schedule', () => {
    const fields = (schedule: DigestFormValues['schedule']) =>
      (digestModal(defs, { ...values, schedule }).blocks as unknown as Json[])
        .map((b) => b.block_id)
        .filter((id) => ['weekday', 'monthday', 'cron', 'time'].includes(String(id)));
    expect(fields({ kind: 'daily', time: '09:00' })).toEqual(['time']);
    expect(fields({ kind: 'weekdays', time: '09:00' })).toEqual(['time']);
    expect(fields({ kind: 'weekly', weekday: 2, time: '09:00' })).toEqual(['weekday', 'time']);
    expect(fields({ kind: 'monthly', monthday: 3, time: '09:00' })).toEqual(['monthday', 'time']);
    expect(fields({ kind: 'cron', cron: '0 9 * * 1' })).toEqual(['cron']);
  });

  it('drawn again for another schedule: what was entered stays, the private metadata too; anything else is refused', () => {
    const drawn = digestModal(defs, values, 12, 'C_HERE');
    const state = {
      values: {
        time: { time: { type: 'plain_text_input', value: '7:45am' } },
        top: { top: { type: 'static_select', selected_option: { value: '8' } } },
        frequency: { frequency: { type: 'static_select', selected_option: { value: 'monthly' } } },
      },
    };
    const form = { blocks: drawn.blocks as unknown[], private_metadata: drawn.private_metadata, state };
    const again = redrawDigestForm(defs, form, 'monthly')!;
    expectValidView(again);
    expect(again.private_metadata).toBe(drawn.private_metadata);
    expect((again as unknown as Json).title).toMatchObject({ text: 'Edit digest #12' });
    expect((element(again, 'frequency').initial_option as Json).value).toBe('monthly');
    expect(element(again, 'monthday').initial_value).toBe('1');
    expect(element(again, 'time').initial_value).toBe('7:45am');
    expect((element(again, 'top').initial_option as Json).value).toBe('8');
    // Not typed since: as drawn before.
    expect(element(again, 'channel').initial_channel).toBe('C_GROWTH');
    expect(element(again, 'timezone').initial_value).toBe('Europe/Berlin');
    expect(element(again, 'filters').initial_value).toBe(values.filters);
    expect((element(again, 'reports').initial_options as Json[]).map((o) => o.value)).toEqual([
      'sources',
      'pages',
      'countries',
    ]);
    expect(redrawDigestForm(defs, form, 'hourly')).toBeUndefined();
    expect(redrawDigestForm(defs, { ...form, private_metadata: '{"id":"x"}' }, 'daily')).toBeUndefined();
  });

  it('long filters (50 of them, as the command allows) still fit their box', () => {
    const filters = Array.from({ length: 50 }, (_, i) => `campaign:"spring sale ${i}"`).join(' ');
    expect(filters.length).toBeGreaterThan(500);
    expectValidView(digestModal(defs, { ...values, filters }, 3));
  });
});

describe("a digest's security line says what the threat scan knows of the period, and no more", () => {
  const day = (d: number, h = 0) =>
    Date.parse(`2026-11-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:00:00Z`);
  // Nov 17–23 in UTC, written on Nov 24 at 09:00.
  const span = { from: day(17), to: day(24), timeZone: 'UTC', now: new Date(day(24, 9)) };
  const seen = (since: number, count: number, upTo?: number) => ({
    count,
    scanningSince: new Date(since),
    ...(upTo !== undefined ? { checkedUpTo: new Date(upTo) } : {}),
  });

  it('a watch begun after the period: not checked, and no count claimed', () => {
    const line = securityLine(span, seen(day(24, 8), 0, day(24, 9)));
    expect(line).toBe('The threat scan began Nov 24, 08:00 (UTC), after this period: its visitors were not checked.');
    expect(line).not.toMatch(/\d+ flagged|no flagged/);
  });

  it('a watch begun during the period counts from then, and says the rest was not checked', () => {
    expect(securityLine(span, seen(day(20, 12), 3, day(24, 9)))).toBe(
      'The threat scan began Nov 20, 12:00 (UTC), during this period: 3 flagged visitors since then; visits before it were not checked.',
    );
    expect(securityLine(span, seen(day(20, 12), 1, day(24, 9)))).toMatch(/: 1 flagged visitor since then;/);
  });

  it('a watch over the whole period: its count, or none', () => {
    expect(securityLine(span, seen(day(1), 0, day(24, 9)))).toBe(
      'The threat scan checked this whole period: no flagged visitors.',
    );
    expect(securityLine(span, seen(day(1), 2, day(24, 9)))).toBe(
      'The threat scan checked this whole period: 2 flagged visitors (see the threat alerts).',
    );
  });

  it('scans behind the period’s end say how far they got', () => {
    expect(securityLine(span, seen(day(1), 2, day(22, 6)))).toBe(
      'The threat scan: 2 flagged visitors in this period; it has checked visits up to Nov 22, 06:00 (UTC), not the rest yet.',
    );
    expect(securityLine(span, seen(day(20), 0, day(20)))).toBe(
      'The threat scan began Nov 20, 00:00 (UTC), during this period: no flagged visitors since then; visits before it were not checked; it has not checked any visits yet.',
    );
  });
});

describe('digestSavedMessage: a digest created or saved says when it runs', () => {
  const base = { id: 3, channelId: 'C000003', schedule: 'Mondays at 09:00 (Europe/Berlin)' };
  it('created: its first run, with the zone, where it posts', () => {
    const message = digestSavedMessage({
      ...base,
      verb: 'created',
      inChannel: true,
      next: { at: 'Dec 7, 09:00 (Europe/Berlin)', due: false },
    });
    expect(validateMessage(message)).toEqual({ ok: true });
    expect(mrkdwnOf(message)[0]).toBe(
      ':white_check_mark: Digest #3 created: it posts in this channel Mondays at 09:00 (Europe/Berlin), first on Dec 7, 09:00 (Europe/Berlin). /traffic digest list shows it.',
    );
  });

  it('saved elsewhere, paused, or with a slot due now', () => {
    const next = { at: 'Dec 7, 09:00 (Europe/Berlin)', due: false };
    expect(mrkdwnOf(digestSavedMessage({ ...base, verb: 'saved', inChannel: false, next }))[0]).toBe(
      ':white_check_mark: Digest #3 saved: it posts in <#C000003> Mondays at 09:00 (Europe/Berlin), next on Dec 7, 09:00 (Europe/Berlin). /traffic digest list all shows it.',
    );
    expect(mrkdwnOf(digestSavedMessage({ ...base, verb: 'saved', inChannel: true }))[0]).toContain(
      'Mondays at 09:00 (Europe/Berlin); it is paused: `/traffic digest resume 3` starts it again.',
    );
    expect(
      mrkdwnOf(digestSavedMessage({ ...base, verb: 'saved', inChannel: true, next: { ...next, due: true } }))[0],
    ).toContain('; its Dec 7, 09:00 (Europe/Berlin) run is due and posts now.');
  });
});
