import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import {
  ALERT_ACTIONS,
  alertMessage,
  alertViewOf,
  groupMessage,
  sightingsReply,
  type AlertView,
  type SummaryRow,
} from '../../../src/features/alerts/blocks.js';
import { allBlocks, colourOf, hasAction, headerOf, mrkdwnOf, tableOf, textsOf } from '../../support/sandbox.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const TZ = 'UTC';
const ID = 'v_alert_test';

const VISIT = {
  id: 'vs_1',
  visitor_id: ID,
  date: '2026-11-21T11:58:00.000Z',
  url: 'https://www.example-shop.com/checkout?step=2',
  referrer: 'https://www.google.com/',
  ip: '185.220.101.47',
  browser: { name: 'Firefox' },
  device: { type: 'desktop' },
  location: { city: 'Amsterdam', country: 'Netherlands' },
};

function view(over: Partial<AlertView> = {}): AlertView {
  return {
    visitorId: ID,
    verdict: 'Threat',
    severity: 'high',
    reasons: ['flagged as attacker', 'proxy'],
    visit: VISIT,
    firstSeen: new Date('2026-11-21T11:58:00Z'),
    lastSeen: new Date('2026-11-21T11:58:00Z'),
    sightings: 1,
    timeZone: TZ,
    now: NOW,
    ...over,
  };
}

type Message = { text: string; blocks: unknown[]; attachments?: unknown[] };

function expectValid(message: Message): void {
  expect(validateMessage(message)).toEqual({ ok: true });
  expect(message.text.length).toBeGreaterThan(0);
}

/** Every mrkdwn text and the notification text: what Slack would interpret. */
const interpreted = (message: Message) => [...mrkdwnOf(message), message.text].join('\n');

describe('alertMessage', () => {
  it('says the verdict and severity once: in the header (and the notification text), the reasons below it', () => {
    const message = alertMessage(view());
    expectValid(message);
    expect(headerOf(message)).toBe(`Threat · high severity: visitor ${ID}`);
    expect(message.text).toBe(`Threat · high severity: visitor ${ID}: flagged as attacker; proxy`);
    expect(mrkdwnOf(message)[0]).toBe('*Why*\n• flagged as attacker\n• proxy');
    const shown = textsOf(message).join('\n');
    expect(shown.match(/Threat/g)).toHaveLength(1);
    expect(shown.match(/high severity/g)).toHaveLength(1);

    const suspicious = alertMessage(
      view({ verdict: 'Suspicious', severity: 'medium', reasons: ['flagged as abuser'] }),
    );
    expectValid(suspicious);
    expect(headerOf(suspicious)).toBe(`Suspicious · medium severity: visitor ${ID}`);
    expect(suspicious.text).toContain('Suspicious · medium severity');
    expect(
      textsOf(suspicious)
        .join('\n')
        .match(/Suspicious/g),
    ).toHaveLength(1);

    // The colour bar shows the severity; no alert block in a message (Slack takes them in modals only).
    expect(JSON.stringify(message)).not.toContain('"type":"alert"');
    expect(colourOf(message)).toBe('error');
    expect(colourOf(suspicious)).toBe('warning');
    expect(colourOf(alertMessage(view({ verdict: 'Suspicious', severity: 'low', reasons: ['proxy'] })))).toBe('info');
    // Acknowledged: grey.
    expect(colourOf(alertMessage(view({ acknowledged: { by: 'U_BOB', at: NOW } })))).toBe('neutral');
  });

  it('lists each reason on its own line', () => {
    const message = alertMessage(
      view({ reasons: ['flagged as attacker', 'scraping score 0.97, type SCRAPER', 'VPN'] }),
    );
    expect(mrkdwnOf(message)[0]).toContain('\n• flagged as attacker\n• scraping score 0.97, type SCRAPER\n• VPN');
  });

  it('says when no reason was recorded', () => {
    expect(mrkdwnOf(alertMessage(view({ reasons: [] })))[0]).toContain('• (no reason recorded)');
  });

  it('raised: the header says the severity rose', () => {
    expect(headerOf(alertMessage(view({ raised: true })))).toBe(`Severity rose: Threat · high severity: visitor ${ID}`);
  });

  it('escapes <!channel> and links in a reason, the page URL and the city; nothing pings', () => {
    const message = alertMessage(
      view({
        reasons: ['1 scraper extension: <!channel> & <https://evil.example|click>'],
        visit: {
          ...VISIT,
          url: 'https://www.example-shop.com/landing/<!channel>',
          referrer: '<!here>',
          location: { city: '<!everyone> City', country: 'A & B' },
        },
      }),
    );
    expectValid(message);
    const text = interpreted(message);
    for (const raw of ['<!channel>', '<!here>', '<!everyone>', '<https://evil.example|click>'])
      expect(text).not.toContain(raw);
    expect(mrkdwnOf(message)[0]).toContain(
      '• 1 scraper extension: &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;',
    );
    const visitField = mrkdwnOf(message).find((t) => t.startsWith('*Visit*'))!;
    expect(visitField).toContain('/landing/&lt;!channel&gt;');
    expect(visitField).toContain('from &lt;!here&gt;');
    expect(visitField).toContain('&lt;!everyone&gt; City, A &amp; B');
    expect(message.text).toContain('&lt;!channel&gt;');
  });

  it('shows the visit: time, path, referrer, place, browser, device, and the IP masked', () => {
    const message = alertMessage(view());
    const visitField = mrkdwnOf(message).find((t) => t.startsWith('*Visit*'))!;
    expect(visitField).toBe(
      '*Visit*\nNov 21, 11:58 (UTC) · /checkout?step=2 · from https://www.google.com/ · Amsterdam, Netherlands · Firefox · desktop · 185.220.101.x',
    );
    expect(JSON.stringify(message)).not.toContain('185.220.101.47');

    const v6 = alertMessage(view({ visit: { ...VISIT, ip: '2a02:418:6a04:178:209:50:192:100' } }));
    expect(JSON.stringify(v6)).not.toContain('178:209');
    expect(mrkdwnOf(v6).join('\n')).toContain('2a02:418:6a04:…');

    const direct = alertMessage(view({ visit: { ...VISIT, referrer: '', ip: 'not an ip' } }));
    const line = mrkdwnOf(direct).find((t) => t.startsWith('*Visit*'))!;
    expect(line).toContain(' · direct · ');
    expect(line).toContain('hidden');
    expect(line).not.toContain('not an ip');
  });

  it('counts the sightings with first and last seen', () => {
    const one = mrkdwnOf(alertMessage(view())).find((t) => t.startsWith('*Seen*'))!;
    expect(one).toBe('*Seen*\n1 visit · first Nov 21, 11:58 (UTC) · last Nov 21, 11:58 (UTC)');
    const many = mrkdwnOf(alertMessage(view({ sightings: 1234, lastSeen: new Date('2026-11-21T11:59:30Z') }))).find(
      (t) => t.startsWith('*Seen*'),
    )!;
    expect(many).toMatch(/^\*Seen\*\n1,234 visits · first Nov 21, 11:58 \(UTC\) · last Nov 21, 11:59 \(UTC\)$/);
  });

  it('Acknowledge only while not acknowledged; then says by whom and when', () => {
    const open = alertMessage(view());
    expect(hasAction(open, ALERT_ACTIONS.ack)).toBe(true);
    expect(textsOf(open).join(' ')).not.toContain('Acknowledged');

    const acked = alertMessage(view({ acknowledged: { by: 'U_CAROL', at: new Date('2026-11-21T11:59:00Z') } }));
    expectValid(acked);
    expect(hasAction(acked, ALERT_ACTIONS.ack)).toBe(false);
    expect(hasAction(acked, ALERT_ACTIONS.details)).toBe(true);
    expect(mrkdwnOf(acked).join('\n')).toContain(
      ':white_check_mark: Acknowledged by <@U_CAROL> at Nov 21, 11:59 (UTC)',
    );
  });

  it('Mute 24h and Mute 7d while not muted; Unmute and "Muted until …" while muted', () => {
    const open = alertMessage(view());
    expect(hasAction(open, ALERT_ACTIONS.mute24h)).toBe(true);
    expect(hasAction(open, ALERT_ACTIONS.mute7d)).toBe(true);
    expect(hasAction(open, ALERT_ACTIONS.unmute)).toBe(false);
    expect(textsOf(open).join(' ')).not.toContain('Muted');

    const muted = alertMessage(view({ mutedUntil: new Date('2026-11-22T12:00:00Z') }));
    expectValid(muted);
    expect(hasAction(muted, ALERT_ACTIONS.mute24h)).toBe(false);
    expect(hasAction(muted, ALERT_ACTIONS.mute7d)).toBe(false);
    expect(hasAction(muted, ALERT_ACTIONS.unmute)).toBe(true);
    expect(mrkdwnOf(muted).join('\n')).toContain(':mute: Muted until Nov 22, 12:00');

    const forGood = alertMessage(view({ mutedUntil: null }));
    expectValid(forGood);
    expect(hasAction(forGood, ALERT_ACTIONS.unmute)).toBe(true);
    expect(hasAction(forGood, ALERT_ACTIONS.mute24h)).toBe(false);
    expect(mrkdwnOf(forGood).join('\n')).toContain(':mute: Muted for good');
    expect(mrkdwnOf(forGood).join('\n')).not.toContain('Muted until');
  });

  it('acknowledged and muted: both said on one line, and only Unmute and Details remain', () => {
    const message = alertMessage(
      view({ acknowledged: { by: 'U_BOB', at: new Date('2026-11-21T11:59:00Z') }, mutedUntil: null }),
    );
    expectValid(message);
    const status = (
      allBlocks(message).find((b) => (b as { type: string }).type === 'context') as { elements: { text: string }[] }
    ).elements[0]!.text;
    expect(status).toBe(':white_check_mark: Acknowledged by <@U_BOB> at Nov 21, 11:59 (UTC) · :mute: Muted for good');
    const actions = allBlocks(message).find((b) => (b as { type: string }).type === 'actions') as {
      elements: { action_id: string; value: string }[];
    };
    expect(actions.elements.map((e) => e.action_id)).toEqual([ALERT_ACTIONS.unmute, ALERT_ACTIONS.details]);
    for (const button of actions.elements) expect(button.value).toBe(ID);
  });

  it('alertViewOf carries an acknowledgement only when both who and when are known', () => {
    const record = {
      visitorId: ID,
      verdict: 'Threat',
      severity: 'high' as const,
      reasons: ['x'],
      visit: VISIT,
      lastSeen: NOW,
      sightings: 2,
    };
    expect(alertViewOf(record, { timeZone: TZ, now: NOW }).acknowledged).toBeUndefined();
    expect(alertViewOf({ ...record, acknowledgedBy: 'U_A' }, { timeZone: TZ, now: NOW }).acknowledged).toBeUndefined();
    const at = new Date('2026-11-21T11:00:00Z');
    const acked = alertViewOf(
      { ...record, acknowledgedBy: 'U_A', acknowledgedAt: at },
      { timeZone: TZ, now: NOW, mutedUntil: null },
    );
    expect(acked).toMatchObject({ acknowledged: { by: 'U_A', at }, mutedUntil: null, sightings: 2, verdict: 'Threat' });
  });

  it('stays within limits with huge reasons, ids and visit fields', () => {
    const long = 'x'.repeat(5000);
    const message = alertMessage(
      view({
        visitorId: `v_${'a'.repeat(3000)}`,
        reasons: Array.from({ length: 40 }, (_, i) => `${i} <!channel> ${long}`),
        visit: { ...VISIT, url: `https://x.example/${long}`, referrer: long, location: { city: long, country: long } },
        acknowledged: { by: 'U_X', at: NOW },
        mutedUntil: new Date('2026-11-28T12:00:00Z'),
      }),
    );
    expectValid(message);
    expect(interpreted(message)).not.toContain('<!channel>');
  });
});

describe('sightingsReply', () => {
  it('"Seen again: visitor v_x, 3 more visits, last on /checkout", with the visit line', () => {
    const reply = sightingsReply(
      ID,
      3,
      { ...VISIT, url: 'https://www.example-shop.com/checkout' },
      { timeZone: TZ, now: NOW },
    );
    expectValid(reply);
    expect(reply.text).toBe(`Seen again: visitor ${ID}, 3 more visits, last on /checkout`);
    const text = mrkdwnOf(reply)[0]!;
    expect(text).toMatch(/^:eyes: Seen again: visitor v_alert_test, 3 more visits, last on \/checkout\n/);
    expect(text).toContain('185.220.101.x');
    expect(JSON.stringify(reply)).not.toContain('185.220.101.47');
  });

  it('one visit is singular; no URL path is "/"; a hostile path is escaped', () => {
    expect(
      sightingsReply(ID, 1, { ...VISIT, url: 'https://www.example-shop.com' }, { timeZone: TZ, now: NOW }).text,
    ).toBe(`Seen again: visitor ${ID}, 1 more visit, last on /`);
    const hostile = sightingsReply(
      ID,
      2,
      { ...VISIT, url: 'https://x.example/<!channel>' },
      { timeZone: TZ, now: NOW },
    );
    expectValid(hostile);
    expect(interpreted(hostile)).not.toContain('<!channel>');
    expect(hostile.text).toBe(`Seen again: visitor ${ID}, 2 more visits, last on /&lt;!channel&gt;`);
  });
});

describe('groupMessage', () => {
  const rows = (n: number): SummaryRow[] =>
    Array.from({ length: n }, (_, i) => ({
      visitorId: `v_group_${String(i).padStart(3, '0')}`,
      severity: i % 3 === 0 ? 'high' : i % 3 === 1 ? 'medium' : 'low',
      verdict: i % 3 === 0 ? 'Threat' : 'Suspicious',
      reasons: i % 3 === 0 ? ['flagged as attacker', 'VPN'] : ['<!channel> scraping score 0.91'],
    }));
  const SINCE = new Date('2026-11-21T11:58:00Z');
  const group = (members: SummaryRow[], over: { openUntil?: Date } = { openUntil: new Date('2026-11-21T12:03:00Z') }) =>
    groupMessage({ channelId: 'C_SECURITY', since: SINCE, members, timeZone: TZ, now: NOW, ...over });

  it('says how many, where (a channel link) and since when, with nouns agreeing with counts; coloured by the worst severity', () => {
    const three = group([rows(3)[1]!, rows(3)[0]!, { ...rows(3)[0]!, visitorId: 'v_other' }]);
    expectValid(three);
    expect(headerOf(three)).toBe(':rotating_light: 3 flagged visitors since Nov 21, 11:58');
    expect(three.text).toBe(
      '3 flagged visitors in <#C_SECURITY> since Nov 21, 11:58 (UTC): 2 threats, 1 suspicious visitor',
    );
    expect(mrkdwnOf(three)[0]).toBe(
      '*3 flagged visitors* in <#C_SECURITY> since Nov 21, 11:58 (UTC): 2 threats, 1 suspicious visitor',
    );
    expect(mrkdwnOf(three)[1]).toBe(
      '2 high · 1 medium · one alert each in the thread, with its buttons · flagged visitors until Nov 21, 12:03 (UTC) join this message; later ones start a new one',
    );
    expect(colourOf(three)).toBe('error');
    // The sentence above the table; the severities in the coloured bar.
    expect(three.blocks.map((b) => b.type)).toEqual(['header', 'section', 'table']);
    expect(mrkdwnOf({ attachments: three.attachments })).toEqual([mrkdwnOf(three)[1]]);
    // The most severe first, in the order they joined.
    expect(tableOf(three).map((r) => r[0])).toEqual(['Visitor', 'v_group_000', 'v_other', 'v_group_001']);

    const one = group([rows(2)[1]!]);
    expect(one.text).toMatch(/^1 flagged visitor in <#C_SECURITY> since .*: 1 suspicious visitor$/);
    expect(colourOf(one)).toBe('warning');
    expect(headerOf(one)).toMatch(/^:warning: 1 flagged visitor since/);
    expect(colourOf(group([rows(3)[2]!]))).toBe('info');
  });

  it('a burst (closed) does not invite more', () => {
    const burst = group(rows(6), {});
    expect(mrkdwnOf(burst).join('\n')).not.toMatch(/join this message/);
    expect(mrkdwnOf(burst)[1]).toBe('2 high · 2 medium · 2 low · one alert each in the thread, with its buttons');
  });

  it('150 rows: within limits, at most 100 table rows, and says how many more', () => {
    const summary = group(rows(150));
    expectValid(summary);
    const table = tableOf(summary);
    expect(table[0]).toEqual(['Visitor', 'Severity', 'Reasons']);
    expect(table).toHaveLength(100);
    expect(table[1]).toEqual(['v_group_000', 'Threat · high', 'flagged as attacker; VPN']);
    expect(mrkdwnOf(summary).join('\n')).toContain('…and 51 more in the thread.');
    expect(summary.text).toBe(
      '150 flagged visitors in <#C_SECURITY> since Nov 21, 11:58 (UTC): 50 threats, 100 suspicious visitors',
    );
  });

  it('exactly 99 rows fit; 100 leave one for the thread', () => {
    const fits = group(rows(99));
    expect(tableOf(fits)).toHaveLength(100);
    expect(mrkdwnOf(fits).join('\n')).not.toContain('more in the thread');
    const over = group(rows(100));
    expectValid(over);
    expect(tableOf(over)).toHaveLength(100);
    expect(mrkdwnOf(over).join('\n')).toContain('…and 1 more in the thread.');
  });

  it('table cells are raw text (never interpreted); hostile reasons never reach mrkdwn; huge ones stay within limits', () => {
    const summary = group([
      { visitorId: 'v_a'.repeat(100), severity: 'high', verdict: 'Threat', reasons: ['y'.repeat(5000)] },
      { visitorId: 'v_b', severity: 'low', verdict: 'Suspicious', reasons: [] },
      ...rows(3).slice(1),
    ]);
    expectValid(summary);
    const cells = (
      summary.blocks.find((b) => (b as { type: string }).type === 'table') as { rows: { type: string }[][] }
    ).rows.flat();
    expect(cells.every((c) => c.type === 'raw_text')).toBe(true);
    expect(tableOf(summary)[4]![2]).not.toBe('');
    expect(interpreted(summary)).not.toContain('<!channel>');
  });
});

describe('every alert message passes Slack validation', () => {
  const severities = [
    ['Threat', 'high'],
    ['Suspicious', 'medium'],
    ['Suspicious', 'low'],
  ] as const;
  const acks = [undefined, { by: 'U_X', at: NOW }];
  const mutes = [undefined, null, new Date('2026-11-22T00:00:00Z')];
  for (const [verdict, severity] of severities)
    for (const acknowledged of acks)
      for (const mutedUntil of mutes)
        for (const raised of [false, true])
          it(`${verdict}/${severity} ack=${acknowledged !== undefined} muted=${String(mutedUntil)} raised=${raised}`, () => {
            expectValid(alertMessage(view({ verdict, severity, acknowledged, mutedUntil, raised })));
          });
});

describe('a scan in words', () => {
  it('each count agrees with its noun', async () => {
    const { scanCounts } = await import('../../../src/features/alerts/service.js');
    expect(scanCounts({ visits: 1, visitors: 1, lookups: 0, alerts: 2, sightings: 1 })).toBe(
      '1 visit, 1 visitor, 0 lookups, 2 alerts, 1 sighting',
    );
    expect(scanCounts({ visits: 1200 })).toBe('1,200 visits');
  });
});
