import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { ALERT_CHECKS } from '../../../src/kernel/verdict.js';
import {
  ALERTS_USAGE,
  parseAlertsCommand,
  parseMuteDuration as parseDuration,
  type AlertsCommand,
} from '../../../src/features/alerts/parse.js';
import { parseTrafficCommand } from '../../../src/features/reports/parse.js';
import { usageMessage } from '../../../src/platform/slack/kit/messages.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ALL = [...ALERT_CHECKS];

/** `/traffic alerts …` text → the alerts command, through the real slash-command tokenizer. */
function alerts(text: string): AlertsCommand {
  const command = parseTrafficCommand(`alerts ${text}`, REPORTS, { subcommands: ['alerts'] });
  if (command.kind !== 'sub') throw new Error(`"alerts ${text}" parsed as ${command.kind}`);
  return parseAlertsCommand(command.args.map((t) => t.text));
}

const OK: Array<[string, AlertsCommand]> = [
  // on
  ['on', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'grouped' }],
  ['ON', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'grouped' }],
  ['on #security', { kind: 'on', channel: { name: 'security' }, min: 'medium', checks: ALL, grouping: 'grouped' }],
  ['on #sec-ops.eu', { kind: 'on', channel: { name: 'sec-ops.eu' }, min: 'medium', checks: ALL, grouping: 'grouped' }],
  [
    'on <#C123|security>',
    { kind: 'on', channel: { id: 'C123', name: 'security' }, min: 'medium', checks: ALL, grouping: 'grouped' },
  ],
  [
    'on <#C123ABC>',
    { kind: 'on', channel: { id: 'C123ABC', name: undefined }, min: 'medium', checks: ALL, grouping: 'grouped' },
  ],
  ['on min high', { kind: 'on', channel: undefined, min: 'high', checks: ALL, grouping: 'grouped' }],
  ['on min LOW', { kind: 'on', channel: undefined, min: 'low', checks: ALL, grouping: 'grouped' }],
  ['on severity medium', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'grouped' }],
  ['on low', { kind: 'on', channel: undefined, min: 'low', checks: ALL, grouping: 'grouped' }],
  ['on high', { kind: 'on', channel: undefined, min: 'high', checks: ALL, grouping: 'grouped' }],
  ['on checks bot,vpn', { kind: 'on', channel: undefined, min: 'medium', checks: ['bot', 'vpn'], grouping: 'grouped' }],
  ['on check scraping', { kind: 'on', channel: undefined, min: 'medium', checks: ['scraping'], grouping: 'grouped' }],
  [
    'on checks bot,bot,vpn',
    { kind: 'on', channel: undefined, min: 'medium', checks: ['bot', 'vpn'], grouping: 'grouped' },
  ],
  [
    'on checks BOT,Extensions',
    { kind: 'on', channel: undefined, min: 'medium', checks: ['bot', 'extensions'], grouping: 'grouped' },
  ],
  [
    'on <#C0SEC|security> min high checks bot,scraping',
    {
      kind: 'on',
      channel: { id: 'C0SEC', name: 'security' },
      min: 'high',
      checks: ['bot', 'scraping'],
      grouping: 'grouped',
    },
  ],
  [
    'on checks vpn low #growth',
    { kind: 'on', channel: { name: 'growth' }, min: 'low', checks: ['vpn'], grouping: 'grouped' },
  ],
  ['on grouped', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'grouped' }],
  ['on each', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'each' }],
  [
    'on #security min high EACH',
    { kind: 'on', channel: { name: 'security' }, min: 'high', checks: ALL, grouping: 'each' },
  ],
  ['on each grouped', { kind: 'on', channel: undefined, min: 'medium', checks: ALL, grouping: 'grouped' }],
  // off
  ['off', { kind: 'off', channel: undefined }],
  ['off #security', { kind: 'off', channel: { name: 'security' } }],
  ['off <#C123|security>', { kind: 'off', channel: { id: 'C123', name: 'security' } }],
  // status
  ['status', { kind: 'status' }],
  ['STATUS', { kind: 'status' }],
  ['', { kind: 'status' }],
  // mute
  ['mute v_123 for 24h', { kind: 'mute', visitorId: 'v_123', forMs: DAY, label: '24h' }],
  ['mute v_123 for 7d', { kind: 'mute', visitorId: 'v_123', forMs: 7 * DAY, label: '7d' }],
  ['mute v_123 7d', { kind: 'mute', visitorId: 'v_123', forMs: 7 * DAY, label: '7d' }],
  ['mute v_123 for 30m', { kind: 'mute', visitorId: 'v_123', forMs: 30 * 60_000, label: '30m' }],
  ['mute v_123 for 2 h', { kind: 'mute', visitorId: 'v_123', forMs: 2 * HOUR, label: '2h' }],
  ['mute v_123 forever', { kind: 'mute', visitorId: 'v_123', forMs: null, label: 'forever' }],
  ['mute v_123 for forever', { kind: 'mute', visitorId: 'v_123', forMs: null, label: 'forever' }],
  ['mute v_123', { kind: 'mute', visitorId: 'v_123', forMs: DAY, label: '24h' }],
  ['mute v_demo_attacker', { kind: 'mute', visitorId: 'v_demo_attacker', forMs: DAY, label: '24h' }],
  ['MUTE v_123 FOR 7D', { kind: 'mute', visitorId: 'v_123', forMs: 7 * DAY, label: '7D' }],
  // unmute
  ['unmute v_123', { kind: 'unmute', visitorId: 'v_123' }],
  ['unmute v_demo.attacker:1', { kind: 'unmute', visitorId: 'v_demo.attacker:1' }],
];

/** [input, a piece of the one-line message] — every error carries the usage. */
const ERRORS: Array<[string, string]> = [
  ['on checks ddos', 'Checks are bot, scraping, vpn, extensions; not `ddos`.'],
  ['on checks bot,ddos', 'not `ddos`'],
  ['on checks', 'Checks are bot, scraping, vpn, extensions.'],
  ['on checks bot, vpn', '`vpn` is not a channel, a severity, a list of checks or a grouping (grouped, each).'],
  ['on min extreme', '`min` takes high, medium or low.'],
  ['on min', '`min` takes high, medium or low.'],
  ['on min #security', '`min` takes high, medium or low.'],
  ['on critical', '`critical` is not a channel, a severity, a list of checks or a grouping (grouped, each).'],
  ['on security', '`security` is not a channel'],
  ['on group', '`group` is not a channel, a severity, a list of checks or a grouping (grouped, each).'],
  ['off security', '`security` is not a channel; use #channel.'],
  ['mute v_123 for soon', '`soon` is not a duration; use 24h, 7d or forever.'],
  ['mute v_123 for 1y', '`1y` is not a duration'],
  ['mute v_123 for 0h', '`0h` is not a duration'],
  ['mute v_123 for 1.5h', '`1.5h` is not a duration'],
  ['mute', 'Which visitor? Like `/traffic alerts mute v_123 for 24h`.'],
  ['mute ../x', 'Which visitor?'],
  ['mute ../x for 7d', 'Which visitor?'],
  ['mute a/b', 'Which visitor?'],
  ['mute v_1..2', 'Which visitor?'],
  ['mute v_1?x=1', 'Which visitor?'],
  [`mute v_${'a'.repeat(200)}`, 'Which visitor?'],
  ['unmute', 'Which visitor? Like `/traffic alerts unmute v_123`.'],
  ['unmute ../x', 'Which visitor?'],
  ['unmute a/b', 'Which visitor?'],
  ['snooze v_123', 'Unknown alerts command `snooze`.'],
  ['list', 'Unknown alerts command `list`.'],
];

describe('/traffic alerts …', () => {
  it.each(OK)('%j', (text, expected) => {
    expect(alerts(text)).toEqual(expected);
  });

  it.each(ERRORS)('%j is an error', (text, message) => {
    const result = alerts(text);
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.message).toContain(message);
    expect(result.usage).toBe(ALERTS_USAGE);
  });

  it('`alert` works as well as `alerts`', () => {
    const command = parseTrafficCommand('alert on high', REPORTS, { subcommands: ['alerts', 'alert'] });
    expect(command).toMatchObject({ kind: 'sub', name: 'alert', args: [{ text: 'on' }, { text: 'high' }] });
  });

  it('a hostile word is quoted back as inline code (one line, short), and the reply escapes it', () => {
    const result = alerts(`<!channel>${'x'.repeat(60)}`);
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    // The parser quotes raw input (the renderer escapes): one code span, cut to 40 code points.
    expect(result.message).toBe(`Unknown alerts command \`<!channel>${'x'.repeat(29)}…\`.`);
    const reply = JSON.stringify(usageMessage(result.message, result.usage).blocks);
    expect(reply).not.toContain('<!channel>');
    expect(reply).toContain('&lt;!channel&gt;');
  });

  it('the usage names every verb, every check and both groupings', () => {
    for (const word of [
      'on',
      'off',
      'status',
      'mute',
      'unmute',
      'min',
      'for 24h|7d|forever',
      'grouped|each',
      ...ALERT_CHECKS,
    ])
      expect(ALERTS_USAGE).toContain(word);
  });
});

describe('parseDuration', () => {
  const TABLE: Array<[string, number | null | undefined]> = [
    ['30m', 30 * 60_000],
    ['5min', 5 * 60_000],
    ['5 min', 5 * 60_000],
    ['1h', HOUR],
    ['24h', DAY],
    ['24H', DAY],
    [' 24h ', DAY],
    ['1d', DAY],
    ['7d', 7 * DAY],
    ['2w', 14 * DAY],
    ['365d', 365 * DAY],
    ['366d', undefined],
    ['9999d', undefined],
    ['forever', null],
    ['Forever', null],
    ['always', null],
    ['permanently', null],
    ['', undefined],
    ['h', undefined],
    ['24', undefined],
    ['0h', undefined],
    ['0d', undefined],
    ['-1h', undefined],
    ['1.5h', undefined],
    ['10000h', undefined],
    ['1y', undefined],
    ['1s', undefined],
    ['24hours', undefined],
    ['never', undefined],
  ];
  it.each(TABLE)('%j → %s', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});
