import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  toJsonPointerMessage,
  validateBlocks,
  validateMessageText,
  validateView,
  type Surface,
} from '../../src/slack-rules/validate.js';

type Block = Record<string, unknown>;

const x = (n: number): string => 'x'.repeat(n);
const plain = (text: string): Block => ({ type: 'plain_text', text });
const mrkdwn = (text: string): Block => ({ type: 'mrkdwn', text });
const option = (value: string, text = value): Block => ({ text: plain(text), value });
const options = (n: number): Block[] => Array.from({ length: n }, (_, i) => option(`v${i}`));
const button = (extra: Block = {}): Block => ({ type: 'button', text: plain('Go'), action_id: 'go', ...extra });
const actions = (...elements: Block[]): Block => ({ type: 'actions', elements });
const section = (text: string): Block => ({ type: 'section', text: mrkdwn(text) });
const url = (n: number): string => `https://example.com/${x(n - 'https://example.com/'.length)}`;
const cell = (text = 'a'): Block => ({ type: 'raw_text', text });
const table = (rows: number, cells = 2, extra: Block = {}): Block => ({
  type: 'table',
  rows: Array.from({ length: rows }, () => Array.from({ length: cells }, () => cell())),
  ...extra,
});

interface BoundaryCase {
  name: string;
  limit: number;
  /** The blocks holding exactly `n` of the measured thing. */
  make: (n: number) => unknown[];
  /** Where the reason must point when over the limit. */
  path: string;
  surface?: Surface;
}

const cases: BoundaryCase[] = [
  {
    name: 'blocks per message',
    limit: LIMITS.messageBlocks,
    make: (n) => Array.from({ length: n }, () => ({ type: 'divider' })),
    path: 'blocks',
  },
  {
    name: 'blocks per modal',
    limit: LIMITS.viewBlocks,
    surface: 'modal',
    make: (n) => Array.from({ length: n }, () => ({ type: 'divider' })),
    path: 'blocks',
  },
  { name: 'section text', limit: 3000, make: (n) => [section(x(n))], path: 'blocks[0].text.text' },
  {
    name: 'section fields count',
    limit: 10,
    make: (n) => [{ type: 'section', fields: Array.from({ length: n }, () => mrkdwn('f')) }],
    path: 'blocks[0].fields',
  },
  {
    name: 'section field text',
    limit: 2000,
    make: (n) => [{ type: 'section', fields: [mrkdwn(x(n))] }],
    path: 'blocks[0].fields[0].text',
  },
  {
    name: 'header text',
    limit: 150,
    make: (n) => [{ type: 'header', text: plain(x(n)) }],
    path: 'blocks[0].text.text',
  },
  {
    name: 'context elements',
    limit: 10,
    make: (n) => [{ type: 'context', elements: Array.from({ length: n }, () => mrkdwn('c')) }],
    path: 'blocks[0].elements',
  },
  { name: 'block_id', limit: 255, make: (n) => [{ type: 'divider', block_id: x(n) }], path: 'blocks[0].block_id' },
  {
    name: 'action_id',
    limit: 255,
    make: (n) => [actions(button({ action_id: x(n) }))],
    path: 'blocks[0].elements[0].action_id',
  },
  {
    name: 'elements per actions block',
    limit: 25,
    make: (n) => [actions(...Array.from({ length: n }, (_, i) => button({ action_id: `b${i}` })))],
    path: 'blocks[0].elements',
  },
  {
    name: 'button text',
    limit: 75,
    make: (n) => [actions(button({ text: plain(x(n)) }))],
    path: 'blocks[0].elements[0].text.text',
  },
  {
    name: 'button value',
    limit: 2000,
    make: (n) => [actions(button({ value: x(n) }))],
    path: 'blocks[0].elements[0].value',
  },
  {
    name: 'button url',
    limit: 3000,
    make: (n) => [actions(button({ url: url(n) }))],
    path: 'blocks[0].elements[0].url',
  },
  {
    name: 'static_select options',
    limit: 100,
    make: (n) => [actions({ type: 'static_select', action_id: 's', placeholder: plain('Pick'), options: options(n) })],
    path: 'blocks[0].elements[0].options',
  },
  {
    name: 'multi_static_select options',
    limit: 100,
    make: (n) => [actions({ type: 'multi_static_select', action_id: 's', options: options(n) })],
    path: 'blocks[0].elements[0].options',
  },
  {
    name: 'option groups',
    limit: 100,
    make: (n) => [
      actions({
        type: 'static_select',
        action_id: 's',
        option_groups: Array.from({ length: n }, (_, i) => ({ label: plain(`g${i}`), options: [option(`v${i}`)] })),
      }),
    ],
    path: 'blocks[0].elements[0].option_groups',
  },
  {
    name: 'options in an option group',
    limit: 100,
    make: (n) => [
      actions({ type: 'static_select', action_id: 's', option_groups: [{ label: plain('g'), options: options(n) }] }),
    ],
    path: 'blocks[0].elements[0].option_groups[0].options',
  },
  {
    name: 'option group label',
    limit: 75,
    make: (n) => [
      actions({ type: 'static_select', action_id: 's', option_groups: [{ label: plain(x(n)), options: options(1) }] }),
    ],
    path: 'blocks[0].elements[0].option_groups[0].label.text',
  },
  {
    name: 'option text',
    limit: 75,
    make: (n) => [actions({ type: 'static_select', action_id: 's', options: [option('v', x(n))] })],
    path: 'blocks[0].elements[0].options[0].text.text',
  },
  {
    name: 'option value',
    limit: LIMITS.optionValue,
    make: (n) => [actions({ type: 'static_select', action_id: 's', options: [option(x(n), 't')] })],
    path: 'blocks[0].elements[0].options[0].value',
  },
  {
    name: 'overflow options',
    limit: 5,
    make: (n) => [actions({ type: 'overflow', action_id: 'o', options: options(n) })],
    path: 'blocks[0].elements[0].options',
  },
  {
    name: 'checkbox options',
    limit: 10,
    make: (n) => [actions({ type: 'checkboxes', action_id: 'c', options: options(n) })],
    path: 'blocks[0].elements[0].options',
  },
  {
    name: 'radio options',
    limit: 10,
    make: (n) => [actions({ type: 'radio_buttons', action_id: 'r', options: options(n) })],
    path: 'blocks[0].elements[0].options',
  },
  {
    name: 'confirm title',
    limit: 100,
    make: (n) => [
      actions(
        button({ confirm: { title: plain(x(n)), text: plain('Sure?'), confirm: plain('Yes'), deny: plain('No') } }),
      ),
    ],
    path: 'blocks[0].elements[0].confirm.title.text',
  },
  {
    name: 'confirm text',
    limit: 300,
    make: (n) => [
      actions(button({ confirm: { title: plain('T'), text: mrkdwn(x(n)), confirm: plain('Yes'), deny: plain('No') } })),
    ],
    path: 'blocks[0].elements[0].confirm.text.text',
  },
  {
    name: 'confirm button',
    limit: 30,
    make: (n) => [
      actions(
        button({ confirm: { title: plain('T'), text: plain('Sure?'), confirm: plain(x(n)), deny: plain('No') } }),
      ),
    ],
    path: 'blocks[0].elements[0].confirm.confirm.text',
  },
  {
    name: 'deny button',
    limit: 30,
    make: (n) => [
      actions(
        button({ confirm: { title: plain('T'), text: plain('Sure?'), confirm: plain('Yes'), deny: plain(x(n)) } }),
      ),
    ],
    path: 'blocks[0].elements[0].confirm.deny.text',
  },
  {
    name: 'select placeholder',
    limit: 150,
    make: (n) => [actions({ type: 'static_select', action_id: 's', placeholder: plain(x(n)), options: options(1) })],
    path: 'blocks[0].elements[0].placeholder.text',
  },
  { name: 'table rows', limit: 100, make: (n) => [table(n)], path: 'blocks[0].rows' },
  { name: 'table cells per row', limit: 20, make: (n) => [table(1, n)], path: 'blocks[0].rows[0]' },
  {
    name: 'table column_settings',
    limit: 20,
    make: (n) => [table(1, 2, { column_settings: Array.from({ length: n }, () => ({ align: 'right' })) })],
    path: 'blocks[0].column_settings',
  },
  {
    name: 'markdown block text',
    limit: 12_000,
    make: (n) => [{ type: 'markdown', text: x(n) }],
    path: 'blocks[0].text',
  },
  {
    name: 'markdown text across blocks',
    limit: 12_000,
    make: (n) => [
      { type: 'markdown', text: x(6000) },
      { type: 'markdown', text: x(n - 6000) },
    ],
    path: 'blocks[1].text',
  },
  {
    name: 'image alt_text',
    limit: 2000,
    make: (n) => [{ type: 'image', image_url: 'https://example.com/a.png', alt_text: x(n) }],
    path: 'blocks[0].alt_text',
  },
  {
    name: 'image url',
    limit: 3000,
    make: (n) => [{ type: 'image', image_url: url(n), alt_text: 'a' }],
    path: 'blocks[0].image_url',
  },
  {
    name: 'input label',
    limit: 2000,
    surface: 'modal',
    make: (n) => [{ type: 'input', label: plain(x(n)), element: { type: 'plain_text_input', action_id: 'i' } }],
    path: 'blocks[0].label.text',
  },
  {
    name: 'plain_text_input max_length',
    limit: 3000,
    surface: 'modal',
    make: (n) => [
      { type: 'input', label: plain('L'), element: { type: 'plain_text_input', action_id: 'i', max_length: n } },
    ],
    path: 'blocks[0].element.max_length',
  },
];

describe('block limits: each limit at its boundary', () => {
  it.each(cases)('$name: $limit is accepted, one more is refused', ({ limit, make, path, surface }) => {
    expect(validateBlocks(make(limit), surface ?? 'message')).toEqual({ ok: true });
    const over = validateBlocks(make(limit + 1), surface ?? 'message');
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.error).toBe('invalid_blocks');
    expect(over.reasons.some((r) => r.startsWith(`${path}: `))).toBe(true);
  });

  it('names the offending field with a path and a readable rule', () => {
    const result = validateBlocks([
      { type: 'divider' },
      { type: 'divider' },
      { type: 'divider' },
      actions(button({ text: plain(x(76)) })),
    ]);
    expect(result).toEqual({
      ok: false,
      error: 'invalid_blocks',
      reasons: ['blocks[3].elements[0].text.text: must be at most 75 characters'],
    });
    expect(toJsonPointerMessage('blocks[3].elements[0].text.text: must be at most 75 characters')).toBe(
      '[ERROR] must be at most 75 characters [json-pointer:/blocks/3/elements/0/text/text]',
    );
  });

  it('counts characters, not UTF-16 units', () => {
    expect(validateBlocks([{ type: 'header', text: plain('😀'.repeat(150)) }])).toEqual({ ok: true });
    expect(validateBlocks([{ type: 'header', text: plain('😀'.repeat(151)) }]).ok).toBe(false);
  });

  it("counts a table's budget in characters, not UTF-16 units", () => {
    // 99 rows of two cells: 9,900 emoji, 19,800 UTF-16 units, and a header of 2.
    const rows = (n: number) => [
      [cell('h'), cell('h')],
      ...Array.from({ length: 99 }, () => [cell('😀'.repeat(n)), cell('😀'.repeat(n))]),
    ];
    expect(validateBlocks([{ type: 'data_table', caption: 'c', rows: rows(50) }])).toEqual({ ok: true });
    expect(validateBlocks([{ type: 'data_table', caption: 'c', rows: rows(51) }])).toEqual({
      ok: false,
      error: 'invalid_blocks',
      reasons: ['blocks[0].rows: its cells hold 10100 characters; at most 10000 (data_table_too_large)'],
    });
  });
});

describe('block limits: structure rules', () => {
  const reasons = (blocks: unknown, surface: Surface = 'message'): string[] => {
    const r = validateBlocks(blocks, surface);
    return r.ok ? [] : r.reasons;
  };

  it('accepts a typical report message', () => {
    const blocks = [
      { type: 'header', text: plain('Sources · last 7 days') },
      {
        type: 'section',
        text: mrkdwn('*Top sources*'),
        accessory: { type: 'overflow', action_id: 'more', options: options(3) },
      },
      {
        type: 'table',
        column_settings: [{ align: 'left', is_wrapped: true }, null, { align: 'right' }],
        rows: [
          [cell('Source'), cell('Visits'), cell('Share')],
          [
            cell('google'),
            { type: 'raw_number', value: 1200, text: '1,200' },
            { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: '40%' }] }] },
          ],
        ],
      },
      {
        type: 'context',
        elements: [mrkdwn('Page 1 of 3'), { type: 'image', image_url: 'https://example.com/i.png', alt_text: 'icon' }],
      },
      actions(button({ action_id: 'prev', value: 'p1' }), button({ action_id: 'next', style: 'primary' })),
      { type: 'divider' },
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_list',
            style: 'bullet',
            elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url: 'https://example.com' }] }],
          },
        ],
      },
      { type: 'markdown', text: '**bold**' },
    ];
    expect(validateBlocks(blocks)).toEqual({ ok: true });
  });

  it('refuses unknown block types and blocks not allowed on the surface', () => {
    expect(reasons([{ type: 'carousel' }])).toEqual(['blocks[0].type: unsupported block type "carousel"']);
    expect(reasons([{ type: 'file', external_id: 'x', source: 'remote' }])).toEqual([
      'blocks[0].type: unsupported block type "file"',
    ]);
    expect(reasons([table(1)], 'modal')).toEqual([
      'blocks[0].type: "table" blocks are not allowed in a modal (only in: message)',
    ]);
    expect(reasons([{ type: 'markdown', text: 'hi' }], 'modal')).toEqual([
      'blocks[0].type: "markdown" blocks are not allowed in a modal (only in: message)',
    ]);
    expect(reasons([{ block_id: 'a' }])).toEqual(['blocks[0].type: is required']);
    expect(reasons('nope')).toEqual(['blocks: must be an array']);
    expect(reasons([null])).toEqual(['blocks[0]: is required']);
  });

  it('allows input blocks in modals and Home tabs, not in messages (Slack refused them there)', () => {
    const input = { type: 'input', label: plain('Country'), element: { type: 'plain_text_input', action_id: 'c' } };
    expect(reasons([input], 'message')).toEqual([
      'blocks[0].type: "input" blocks are not allowed in a message (only in: modal, home)',
    ]);
    expect(validateBlocks([input], 'modal')).toEqual({ ok: true });
    expect(validateBlocks([input], 'home')).toEqual({ ok: true });
    expect(reasons([{ ...input, element: button() }], 'modal')).toEqual([
      'blocks[0].element.type: "button" is not allowed in an input block',
    ]);
  });

  it('allows one table per message', () => {
    expect(reasons([table(1), table(1)])).toEqual([
      'blocks[1]: only one table block is allowed in a message (only_one_table_allowed)',
    ]);
  });

  it('checks table cells and column settings', () => {
    expect(reasons([{ type: 'table', rows: [[cell('')]] }])).toEqual(['blocks[0].rows[0][0].text: must not be empty']);
    expect(reasons([{ type: 'table', rows: [[{ type: 'mrkdwn', text: 'a' }]] }])).toEqual([
      'blocks[0].rows[0][0].type: must be raw_text, raw_number or rich_text',
    ]);
    expect(reasons([{ type: 'table', rows: [[{ type: 'raw_number', value: 'x', text: '1' }]] }])).toEqual([
      'blocks[0].rows[0][0].value: must be a finite number',
    ]);
    expect(reasons([{ type: 'table', rows: [] }])).toEqual(['blocks[0].rows: must not be empty']);
    expect(reasons([table(1, 2, { column_settings: [{ align: 'middle' }, { is_wrapped: 'yes' }] })])).toEqual([
      'blocks[0].column_settings[0].align: must be left, center or right',
      'blocks[0].column_settings[1].is_wrapped: must be a boolean',
    ]);
  });

  it('keeps block_ids unique in the message, action_ids unique in a block', () => {
    expect(
      reasons([
        { type: 'divider', block_id: 'a' },
        { type: 'divider', block_id: 'a' },
      ]),
    ).toEqual(['blocks[1].block_id: duplicate block_id "a"']);
    expect(reasons([actions(button({ action_id: 'a' }), button({ action_id: 'a' }))])).toEqual([
      'blocks[0].elements[1].action_id: duplicate action_id "a" in this block',
    ]);
    expect(validateBlocks([actions(button({ action_id: 'a' })), actions(button({ action_id: 'a' }))])).toEqual({
      ok: true,
    });
    expect(reasons([{ type: 'divider', block_id: '' }])).toEqual(['blocks[0].block_id: must not be empty']);
  });

  it('checks text objects', () => {
    expect(reasons([{ type: 'section', text: { type: 'html', text: 'a' } }])).toEqual([
      'blocks[0].text.type: must be plain_text or mrkdwn',
    ]);
    expect(reasons([{ type: 'section', text: mrkdwn('') }])).toEqual(['blocks[0].text.text: must not be empty']);
    expect(reasons([{ type: 'section', text: { type: 'mrkdwn' } }])).toEqual(['blocks[0].text.text: is required']);
    expect(reasons([{ type: 'section', text: 'hello' }])).toEqual(['blocks[0].text: must be an object']);
    expect(reasons([{ type: 'header', text: mrkdwn('a') }])).toEqual(['blocks[0].text.type: must be plain_text']);
    expect(reasons([actions(button({ text: mrkdwn('Go') }))])).toEqual([
      'blocks[0].elements[0].text.type: must be plain_text',
    ]);
    expect(reasons([{ type: 'section' }])).toEqual(['blocks[0]: must have text or fields']);
  });

  it('checks images', () => {
    expect(reasons([{ type: 'image', alt_text: 'a' }])).toEqual(['blocks[0]: must have image_url or slack_file']);
    expect(reasons([{ type: 'image', image_url: 'https://example.com/a.png' }])).toEqual([
      'blocks[0].alt_text: is required',
    ]);
    expect(validateBlocks([{ type: 'image', slack_file: { id: 'F1' }, alt_text: 'a' }])).toEqual({ ok: true });
  });

  it('checks selects and options', () => {
    expect(
      reasons([actions({ type: 'static_select', action_id: 's', options: options(1), option_groups: [] })]),
    ).toEqual(['blocks[0].elements[0]: must have either options or option_groups, not both']);
    expect(
      reasons([actions({ type: 'static_select', action_id: 's', options: options(2), initial_option: option('zz') })]),
    ).toEqual(['blocks[0].elements[0].initial_option: must match one of the options']);
    expect(
      reasons([
        actions({ type: 'static_select', action_id: 's', options: [{ ...option('v'), url: 'https://example.com' }] }),
      ]),
    ).toEqual(['blocks[0].elements[0].options[0].url: is only allowed in overflow menus']);
    expect(reasons([actions({ type: 'overflow', action_id: 'o', options: [] })])).toEqual([
      'blocks[0].elements[0].options: must not be empty',
    ]);
    expect(
      reasons([actions({ type: 'static_select', action_id: 's', options: [{ text: mrkdwn('a'), value: 'a' }] })]),
    ).toEqual(['blocks[0].elements[0].options[0].text.type: must be plain_text']);
    expect(
      validateBlocks([actions({ type: 'checkboxes', action_id: 'c', options: [{ text: mrkdwn('*a*'), value: 'a' }] })]),
    ).toEqual({ ok: true });
    expect(reasons([actions({ type: 'plain_text_input', action_id: 'p' })])).toEqual([
      'blocks[0].elements[0].type: "plain_text_input" is not allowed in an actions block',
    ]);
    expect(reasons([actions(button({ style: 'green' }))])).toEqual([
      'blocks[0].elements[0].style: must be primary or danger',
    ]);
  });
});

describe('message text', () => {
  it('needs text, blocks or attachments', () => {
    expect(validateMessageText(undefined)).toEqual({ ok: false, error: 'no_text' });
    expect(validateMessageText('', [])).toEqual({ ok: false, error: 'no_text' });
    expect(validateMessageText(undefined, [{ type: 'divider' }])).toEqual({ ok: true, text: '', truncated: false });
    expect(validateMessageText(undefined, undefined, [{ text: 'a' }])).toEqual({
      ok: true,
      text: '',
      truncated: false,
    });
  });

  it('keeps 40,000 characters and truncates past them', () => {
    expect(validateMessageText(x(LIMITS.messageText))).toEqual({ ok: true, text: x(40_000), truncated: false });
    const over = validateMessageText(x(40_001));
    expect(over).toEqual({ ok: true, text: x(40_000), truncated: true });
  });
});

describe('views', () => {
  const view = (extra: Block = {}): Block => ({
    type: 'modal',
    title: plain('Filter'),
    submit: plain('Apply'),
    blocks: [
      { type: 'input', block_id: 'b', label: plain('Country'), element: { type: 'plain_text_input', action_id: 'c' } },
    ],
    ...extra,
  });

  it('accepts a modal and checks its title, buttons and metadata', () => {
    expect(validateView(view())).toEqual({ ok: true });
    expect(validateView(view({ title: plain(x(24)) }))).toEqual({ ok: true });
    expect(validateView(view({ title: plain(x(25)) }))).toEqual({
      ok: false,
      error: 'invalid_arguments',
      reasons: ['view.title.text: must be at most 24 characters'],
    });
    expect(validateView(view({ submit: plain(x(25)) })).ok).toBe(false);
    expect(validateView(view({ private_metadata: x(3000) }))).toEqual({ ok: true });
    expect(validateView(view({ private_metadata: x(3001) }))).toEqual({
      ok: false,
      error: 'invalid_arguments',
      reasons: ['view.private_metadata: must be at most 3000 characters'],
    });
    expect(validateView(view({ submit: undefined }))).toEqual({
      ok: false,
      error: 'invalid_arguments',
      reasons: ['view.submit: is required when the view has input blocks'],
    });
    expect(validateView(view({ blocks: [{ type: 'header', text: plain(x(151)) }] }))).toEqual({
      ok: false,
      error: 'invalid_arguments',
      reasons: ['view.blocks[0].text.text: must be at most 150 characters'],
    });
  });
});

describe("Slack's newer blocks: data_visualization, data_table and alert", () => {
  const reasons = (blocks: unknown, surface: Surface = 'message'): string[] => {
    const r = validateBlocks(blocks, surface);
    return r.ok ? [] : r.reasons;
  };
  const days = ['Nov 17', 'Nov 18', 'Nov 19'];
  const series = (name: string, labels = days): Block => ({
    name,
    data: labels.map((label, i) => ({ label, value: 10 + i })),
  });
  const line = (extra: Block = {}): Block => ({
    type: 'data_visualization',
    title: 'Visits, last 7 days',
    chart: {
      type: 'line',
      series: [series('This week'), series('Last week')],
      axis_config: { categories: days, x_label: 'Day', y_label: 'Visits' },
    },
    ...extra,
  });
  const pie = (segments: Block[]): Block => ({
    type: 'data_visualization',
    title: 'Share of visits',
    chart: { type: 'pie', segments },
  });

  it('accepts a trend chart with the previous period, a pie and a data_table in a message, and an alert in a modal', () => {
    const dataTable = {
      type: 'data_table',
      caption: 'Sources',
      page_size: 10,
      rows: [
        [cell('Source'), cell('Visits')],
        [cell('google'), { type: 'raw_number', value: 1200, text: '1,200' }],
      ],
    };
    const blocks = [
      line(),
      pie([
        { label: 'google', value: 3 },
        { label: 'direct', value: 2 },
      ]),
      dataTable,
    ];
    expect(validateBlocks(blocks)).toEqual({ ok: true });
    expect(
      validateBlocks([{ type: 'alert', level: 'error', text: mrkdwn('*Threat* · high severity') }], 'modal'),
    ).toEqual({ ok: true });
  });

  it('refuses each limit past its edge, naming it', () => {
    expect(reasons([line({ title: x(51) })])).toEqual(['blocks[0].title: must be at most 50 characters']);
    expect(reasons([line({ title: x(50) })])).toEqual([]);
    const seven = Array.from({ length: 7 }, (_, i) => series(`s${i}`));
    expect(reasons([{ ...line(), chart: { type: 'bar', series: seven, axis_config: { categories: days } } }])).toEqual([
      'blocks[0].chart.series: must have at most 6 items (got 7)',
    ]);
    expect(reasons([pie([])])).toEqual(['blocks[0].chart.segments: must not be empty']);
    expect(reasons([pie(Array.from({ length: 7 }, (_, i) => ({ label: `s${i}`, value: 1 })))])).toEqual([
      'blocks[0].chart.segments: must have at most 6 items (got 7)',
    ]);
    expect(
      reasons([
        pie([
          { label: x(21), value: 1 },
          { label: 'ok', value: 0 },
        ]),
      ]),
    ).toEqual([
      'blocks[0].chart.segments[0].label: must be at most 20 characters',
      'blocks[0].chart.segments[1].value: must be a number above 0',
    ]);
    const long = [x(21), 'b', 'c'];
    expect(
      reasons([{ ...line(), chart: { type: 'area', series: [series('a', long)], axis_config: { categories: long } } }]),
    ).toEqual([
      'blocks[0].chart.axis_config.categories[0]: must be at most 20 characters',
      'blocks[0].chart.series[0].data[0].label: must be at most 20 characters',
    ]);
    expect(
      reasons([
        { ...line(), chart: { type: 'line', series: [series('a'), series('a')], axis_config: { categories: days } } },
      ]),
    ).toEqual(['blocks[0].chart.series[1].name: "a" is the name of another series']);
    expect(
      reasons([
        {
          ...line(),
          chart: {
            type: 'line',
            series: [series('a', ['Nov 18', 'Nov 17', 'Nov 19'])],
            axis_config: { categories: days },
          },
        },
      ]),
    ).toEqual(['blocks[0].chart.series[0].data: its labels must be the x-axis categories, in order']);
    expect(reasons([line(), line(), line()])).toEqual(['blocks[2]: at most 2 data_visualization blocks in a message']);
    expect(reasons([{ ...line(), chart: { type: 'scatter' } }])).toEqual([
      'blocks[0].chart.type: must be pie, bar, area or line',
    ]);
  });

  it('data_table: header of raw cells, rows of one width, 1–100 rows, page_size 1–100, and the character budget', () => {
    const dt = (rows: Block[][], extra: Block = {}): Block => ({ type: 'data_table', caption: 'c', rows, ...extra });
    const row = (text = 'a') => [cell(text), cell(text)];
    expect(reasons([dt([row(), row()], { page_size: 101 })])).toEqual([
      'blocks[0].page_size: must be an integer from 1 to 100',
    ]);
    expect(reasons([dt([row(), ...Array.from({ length: 101 }, () => row())])])).toEqual([
      'blocks[0].rows: must have at most 101 items (got 102)',
    ]);
    const rich = {
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'h' }] }],
    };
    expect(reasons([dt([[rich, cell()], row()])])).toEqual([
      'blocks[0].rows[0][0]: the header row takes raw_text or raw_number cells, not rich_text',
    ]);
    expect(reasons([dt([row(), [cell()]])])).toEqual(['blocks[0].rows[1]: must have 2 cells like the header row']);
    const big = Array.from({ length: 100 }, () => row(x(60)));
    expect(reasons([dt([row(), ...big])])[0]).toMatch(
      /^blocks\[0\]\.rows: its cells hold \d+ characters; at most 10000 \(data_table_too_large\)$/,
    );
  });

  it('alert: a text object and one of the five levels, in modals only; charts in messages only', () => {
    expect(reasons([{ type: 'alert', level: 'red', text: plain('x') }], 'modal')).toEqual([
      'blocks[0].level: must be default, info, warning, error or success',
    ]);
    expect(reasons([{ type: 'alert' }], 'modal')).toEqual(['blocks[0].text: is required']);
    expect(reasons([{ type: 'alert', level: 'error', text: plain('x') }])).toEqual([
      'blocks[0].type: "alert" blocks are not allowed in a message (only in: modal)',
    ]);
    expect(reasons([line()], 'modal')).toEqual([
      'blocks[0].type: "data_visualization" blocks are not allowed in a modal (only in: message)',
    ]);
  });
});
