import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorKind } from '../../../src/platform/api/errors.js';
import {
  adblockStatus,
  botStatus,
  scrapingExtensionsStatus,
  scrapingStatus,
  visitorRecord,
  visitRecord,
  vpnStatus,
} from '../../../src/platform/api/schemas.js';
import type { Part, SecurityAnswers, SecurityCheck, VisitorRecord, VisitRecord } from '../../../src/kernel/records.js';
import type { VisitorProfile } from '../../../src/features/visitor/card.js';
import { MISSING } from '../../../src/kernel/format.js';
import { judge, securityFacts } from '../../../src/kernel/verdict.js';
import { maskIp } from '../../../src/kernel/format.js';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import {
  decodeCardRef,
  encodeCardRef,
  VISITOR_ACTIONS,
  visitorCard,
  type VisitorCardView,
} from '../../../src/features/visitor/card.js';
import { allBlocks, colourOf, hasAction, headerOf, mrkdwnOf, tableOf, textsOf } from '../../support/sandbox.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const ID = 'v_card_test';

type Json = Record<string, unknown>;

/** The answers as raw API JSON; every part goes through the real response schemas. */
interface RawProfile {
  bot?: Json;
  scraping?: Json;
  vpn?: Json;
  extensions?: Json;
  adblock?: Json;
  record?: Json | undefined;
  visits?: Json[];
  /** Parts that failed, with the error kind. */
  failed?: Partial<Record<SecurityCheck | 'record' | 'visits', ApiErrorKind>>;
}

const CLEAN = {
  bot: { is_abuser: 'False', is_attacker: 'False', is_proxy: 'False', is_threat: 'False' },
  scraping: { score: 0.02, visitor_type: 'HUMAN' },
  vpn: { vpn: 'False' },
  extensions: { adblock: 'No', scraper_extension_list: [] },
  adblock: { adblock: 'No', adblock_extension: '' },
} satisfies Partial<RawProfile>;

const failure = (kind: ApiErrorKind) => ({
  ok: false as const,
  error: new ApiError(kind, `failed: ${kind}`, { path: '/somewhere' }),
});

function profile(raw: RawProfile = {}): VisitorProfile {
  const failed = raw.failed ?? {};
  const part = <T>(name: keyof NonNullable<RawProfile['failed']>, value: () => T): Part<T> => {
    const kind = failed[name];
    return kind ? failure(kind) : { ok: true, value: value() };
  };
  const security: { [K in SecurityCheck]: Part<SecurityAnswers[K]> } = {
    bot: part('bot', () => botStatus.parse({ visitor_id: ID, ...CLEAN.bot, ...raw.bot })),
    scraping: part('scraping', () => scrapingStatus.parse({ visitor_id: ID, ...CLEAN.scraping, ...raw.scraping })),
    vpn: part('vpn', () => vpnStatus.parse({ visitor_id: ID, ...CLEAN.vpn, ...raw.vpn })),
    extensions: part('extensions', () =>
      scrapingExtensionsStatus.parse({ visitor_id: ID, ...CLEAN.extensions, ...raw.extensions }),
    ),
    adblock: part('adblock', () => adblockStatus.parse({ visitor_id: ID, ...CLEAN.adblock, ...raw.adblock })),
  };
  const defaultRecord = { id: ID, first_seen: '2026-09-01T10:00:00.000Z', last_seen: '2026-11-21T11:00:00.000Z' };
  const record: Part<VisitorRecord | undefined> = part('record', () =>
    'record' in raw && raw.record === undefined ? undefined : visitorRecord.parse(raw.record ?? defaultRecord),
  );
  const visits: Part<readonly VisitRecord[]> = part('visits', () =>
    (raw.visits ?? []).map((v) => visitRecord.parse(v)),
  );
  return { visitorId: ID, security, record, visits, notFound: false, allFailed: false };
}

/** The card as the runner builds it: the verdict judged from the same profile. */
function card(raw: RawProfile = {}, overrides: Partial<VisitorCardView> = {}) {
  const p = overrides.profile ?? profile(raw);
  const view: VisitorCardView = {
    profile: p,
    verdict: judge(securityFacts(p.security)),
    visitsPage: 1,
    visitsLimit: 10,
    timeZone: 'UTC',
    now: NOW,
    demo: false,
    showIp: true,
    canShare: false,
    ...overrides,
  };
  return visitorCard(view);
}

function visit(i: number, fields: Json = {}): Json {
  return {
    id: `vs_${i}`,
    visitor_id: ID,
    date: new Date(NOW.getTime() - i * 3_600_000).toISOString(),
    url: `https://shop.example/products/item-${i}?ref=x`,
    referrer: 'https://www.google.com/',
    ip: '203.0.113.45',
    browser: { name: 'Firefox' },
    device: { type: 'desktop', os: { name: 'Linux' } },
    location: { city: 'Amsterdam', country: 'Netherlands' },
    ...fields,
  };
}

type Block = Json & { type: string };
const blocksOf = (message: { blocks: unknown[]; attachments?: unknown[] }) => allBlocks(message) as Block[];

/** The flags section: label → value, from `*Label*\nvalue` fields. */
function fieldsOf(message: { blocks: unknown[] }): Record<string, string> {
  const section = blocksOf(message).find(
    (b) => b.type === 'section' && Array.isArray(b.fields) && JSON.stringify(b.fields).includes('*Attacker*'),
  );
  if (!section) throw new Error('no flags section');
  const out: Record<string, string> = {};
  for (const f of section.fields as { text: string }[]) {
    const m = /^\*([^*]+)\*\n([\s\S]*)$/.exec(f.text);
    if (!m) throw new Error(`field not "*Label*\\nvalue": ${f.text}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** The buttons: action_id → { text, value }. */
function buttonsOf(message: { blocks: unknown[] }): Record<string, { text: string; value?: string }> {
  const out: Record<string, { text: string; value?: string }> = {};
  for (const b of blocksOf(message).filter((b) => b.type === 'actions')) {
    for (const e of b.elements as { action_id: string; text: { text: string }; value?: string }[])
      out[e.action_id] = { text: e.text.text, value: e.value };
  }
  return out;
}

const column = (message: { blocks: unknown[] }, name: string): string[] => {
  const [header, ...rows] = tableOf(message);
  const i = header!.indexOf(name);
  expect(i).toBeGreaterThanOrEqual(0);
  return rows.map((r) => r[i]!);
};

describe('visitorCard: the verdict in words and colour', () => {
  it.each([
    { role: 'an attacker', raw: { bot: { is_attacker: 'True' } }, header: `Threat · high severity: visitor ${ID}` },
    {
      role: 'a scraper',
      raw: { scraping: { score: 0.93, visitor_type: 'BOT' } },
      header: `Suspicious · medium severity: visitor ${ID}`,
    },
    { role: 'a VPN user', raw: { vpn: { vpn: 'True' } }, header: `Suspicious · low severity: visitor ${ID}` },
    { role: 'a human', raw: {}, header: `Human: visitor ${ID}` },
    {
      role: 'nobody knows',
      raw: { bot: { is_attacker: 'Unknown', is_threat: 'Unknown', is_abuser: 'Unknown' } },
      header: `Unknown: visitor ${ID}`,
    },
  ] as { role: string; raw: RawProfile; header: string }[])(
    '$role: the header names it, once; the colour bar shows it; why comes first, above the flags',
    ({ raw, header }) => {
      const message = card(raw);
      expect(headerOf(message)).toBe(header);
      const name = header.split(/[ :]/)[0]!;
      // Said once: no other text repeats the verdict (the bot status's "Threat" flag is a field of its own).
      expect(textsOf(message).filter((t) => t.includes(name) && !t.startsWith('*Threat*\n'))).toEqual([header]);
      // No alert block in a message (Slack takes them in modals only): the colour is the attachment's bar.
      expect(JSON.stringify(message)).not.toContain('"type":"alert"');
      const level = { Threat: 'error', Suspicious: 'warning', Human: 'success', Unknown: 'info' }[name];
      expect(colourOf(message)).toBe(level);
      const blocks = blocksOf(message);
      const why = blocks.findIndex((b) => JSON.stringify(b).includes('"*Why*'));
      const flags = blocks.findIndex((b) => JSON.stringify(b).includes('*Attacker*'));
      expect(why).toBeGreaterThan(0);
      expect(why).toBeLessThan(flags);
      expect(blocks.slice(0, why).map((b) => b.type)).toEqual(['header']);
      expect(mrkdwnOf(message).join('\n')).toContain(`Visitor \`${ID}\``);
      expect(message.text.startsWith(header.replace(`: visitor ${ID}`, ''))).toBe(true);
    },
  );

  it('the fallback text and the Why section carry the reasons; a human says nothing was flagged', () => {
    const threat = card({ bot: { is_attacker: 'True', is_proxy: 'True' } });
    expect(threat.text).toBe(`Threat · high severity: visitor ${ID} (flagged as attacker; proxy)`);
    const why = mrkdwnOf(threat).find((t) => t.startsWith('*Why*'))!;
    expect(why).toBe('*Why*\n• flagged as attacker _(high)_\n• proxy _(low)_');
    expect(mrkdwnOf(card()).find((t) => t.startsWith('*Why*'))).toBe('*Why*\n• nothing flagged');
    const unknown = card({ failed: { scraping: 'timeout' } });
    expect(mrkdwnOf(unknown).find((t) => t.startsWith('*Why*'))).toBe(
      '*Why*\n• nothing flagged, but not enough answers to say more\n• _scraping status unavailable (timeout)_',
    );
  });

  it('names the visit when asked about one, and marks demo data', () => {
    const message = card({}, { visitId: 'vs_demo_attacker_01', demo: true });
    const texts = mrkdwnOf(message).join('\n');
    expect(texts).toContain('visit `vs_demo_attacker_01`');
    expect(texts).toContain('_demo data_');
    expect(mrkdwnOf(card()).join('\n')).not.toContain('demo data');
  });
});

describe('visitorCard: the flags', () => {
  it('says every flag in words, whatever spelling the API sent', () => {
    const message = card({
      bot: { is_attacker: 'TRUE', is_threat: 'false', is_abuser: 'Unknown', is_proxy: '1' },
      vpn: { vpn: 'yes' },
      scraping: { score: 0.4, visitor_type: 'CRAWLER' },
      extensions: {
        scraper_extension_list: [{ id: 'abcdefghijklmnopabcdefghijklmnop', name: 'Web Scraper' }, 'Data Miner'],
      },
      adblock: { adblock: 'Yes', adblock_extension: 'uBlock Origin' },
    });
    expect(fieldsOf(message)).toEqual({
      Attacker: 'yes',
      Threat: 'no',
      Abuser: 'unknown',
      Proxy: 'yes',
      VPN: 'yes',
      'Scraping score': '0.40',
      'Visitor type': 'CRAWLER',
      'Scraper extensions': 'Web Scraper, Data Miner',
      'Ad blocker': 'yes (uBlock Origin)',
    });
    const clean = fieldsOf(card());
    expect([clean.Attacker, clean.Threat, clean.Abuser, clean.Proxy, clean.VPN, clean['Ad blocker']]).toEqual([
      'no',
      'no',
      'no',
      'no',
      'no',
      'no',
    ]);
    expect(JSON.stringify(card({ bot: { is_attacker: 'True' } }).blocks)).not.toMatch(/\b(True|False)\b/);
  });

  it('shows drifted booleans in words, an empty answer as "no answer", a strange one quoted, and no extensions as "none"', () => {
    const message = card({
      bot: { is_attacker: true, is_threat: false, is_abuser: '', is_proxy: null },
      scraping: { score: null, visitor_type: null },
      adblock: { adblock: '' },
      vpn: { vpn: 'Maybe' },
    });
    const fields = fieldsOf(message);
    expect(fields.Attacker).toBe('yes');
    expect(fields.Threat).toBe('no');
    expect(fields.Abuser).toBe('no answer');
    expect(fields.Proxy).toBe('no answer');
    expect(fields.VPN).toBe('unknown (the API said “Maybe”)');
    expect(fields['Scraping score']).toBe(MISSING);
    expect(fields['Visitor type']).toBe(MISSING);
    expect(fields['Scraper extensions']).toBe('none');
    expect(fields['Ad blocker']).toBe('no answer');
  });

  it('marks each failed part as unavailable, with why', () => {
    const message = card({
      failed: {
        bot: 'timeout',
        scraping: 'timeout',
        vpn: 'rate_limited',
        extensions: 'bad_response',
        adblock: 'unavailable',
      },
    });
    expect(fieldsOf(message)).toEqual({
      Attacker: '_unavailable (timeout)_',
      Threat: '_unavailable (timeout)_',
      Abuser: '_unavailable (timeout)_',
      Proxy: '_unavailable (timeout)_',
      VPN: '_unavailable (rate limited)_',
      'Scraping score': '_unavailable (timeout)_',
      'Visitor type': '_unavailable (timeout)_',
      'Scraper extensions': '_unavailable (bad response)_',
      'Ad blocker': '_unavailable (unavailable)_',
    });
  });

  it('a failed record or visits part is marked too, and the rest of the card stands', () => {
    const message = card({ bot: { is_attacker: 'True' }, failed: { record: 'timeout', visits: 'timeout' } });
    const texts = mrkdwnOf(message);
    expect(texts).toContain('*Visitor record:* _unavailable (timeout)_');
    expect(texts).toContain('*Recent visits:* _unavailable (timeout)_');
    expect(tableOf(message)).toEqual([]);
    expect(headerOf(message)).toMatch(/^Threat/);
    expect(hasAction(message, VISITOR_ACTIONS.more)).toBe(false);
  });

  it('shows the record: first and last seen in the time zone, the company, or a dash without one', () => {
    const withCompany = card(
      {
        record: {
          id: ID,
          first_seen: '2026-09-01T10:00:00.000Z',
          last_seen: '2026-11-21T11:00:00.000Z',
          company: { name: 'Initech' },
        },
      },
      { timeZone: 'Europe/Berlin' },
    );
    const record = blocksOf(withCompany).find((b) => JSON.stringify(b).includes('*First seen*'))!;
    expect((record.fields as { text: string }[]).map((f) => f.text)).toEqual([
      '*First seen*\nSep 1, 12:00 (Europe/Berlin)',
      '*Last seen*\nNov 21, 12:00 (Europe/Berlin)',
      '*Company*\nInitech',
    ]);
    const without = card();
    expect(mrkdwnOf(without)).toContain(`*Company*\n${MISSING}`);
  });
});

describe('visitorCard: API strings are never acted on', () => {
  const HOSTILE_PAGE = 'https://shop.example/landing/<https://evil.example|click>';
  const message = card(
    {
      record: {
        id: ID,
        first_seen: '2026-09-01T10:00:00.000Z',
        last_seen: '2026-11-21T11:00:00.000Z',
        company: { name: '<!channel> & Sons' },
      },
      scraping: { score: 0.95, visitor_type: '<!here>' },
      extensions: { scraper_extension_list: [{ name: '<https://evil.example|click>' }, 'Tom & Jerry <b>'] },
      adblock: { adblock: 'Yes', adblock_extension: '<!everyone>' },
      bot: { is_attacker: '<@U_ALICE>' },
      visits: [
        visit(0, {
          url: HOSTILE_PAGE,
          referrer: '<!channel>',
          location: { city: '<!subteam^S1>', country: 'A & B' },
          browser: { name: '<#C_GENERAL>' },
        }),
        visit(1, { url: 'not a url <!channel>', referrer: '' }),
      ],
    },
    { timeZone: 'UTC' },
  );

  it('escapes &, < and > in every mrkdwn text', () => {
    const texts = mrkdwnOf(message);
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) {
      expect(text).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
    const all = texts.join('\n');
    expect(all).toContain('&lt;!channel&gt; &amp; Sons');
    expect(all).toContain('&lt;https://evil.example|click&gt;, Tom &amp; Jerry &lt;b&gt;');
    expect(all).toContain('&lt;!here&gt;');
    expect(all).toContain('(&lt;!everyone&gt;)');
    expect(all).toContain('&lt;@U_ALICE&gt;');
    // The reasons quote API strings too.
    expect(all).toContain('scraping score 0.95, type &lt;!here&gt;');
    expect(all).toContain('2 scraper extensions: &lt;https://evil.example|click&gt;, Tom &amp; Jerry &lt;b&gt;');
  });

  it('escapes the fallback text, which notifications show as mrkdwn', () => {
    expect(message.text).not.toMatch(/[<>]/);
    expect(message.text).toContain('type &lt;!here&gt;');
  });

  it('shows them literally in the raw_text cells of the visits table', () => {
    expect(column(message, 'Page')).toEqual(['/landing/<https://evil.example|click>', 'not a url <!channel>']);
    expect(column(message, 'Referrer')).toEqual(['<!channel>', 'direct']);
    expect(column(message, 'Where')[0]).toBe('<!subteam^S1>, A & B');
    expect(column(message, 'Browser')[0]).toBe('<#C_GENERAL>');
    const table = blocksOf(message).find((b) => b.type === 'table')!;
    for (const row of table.rows as { type: string }[][]) for (const cell of row) expect(cell.type).toBe('raw_text');
  });

  it('the header (plain text) holds nothing from the API but the checked visitor id', () => {
    expect(headerOf(message)).toBe(`Suspicious · medium severity: visitor ${ID}`);
  });
});

describe('maskIp', () => {
  it.each([
    ['203.0.113.45', '203.0.113.x'],
    [' 203.0.113.45 ', '203.0.113.x'],
    ['10.0.0.1', '10.0.0.x'],
    ['2001:db8:1:2::5', '2001:db8:1:…'],
    ['2a02:418:6a04:178::a3', '2a02:418:6a04:…'],
    ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', '2001:0db8:85a3:…'],
    // Compressed early: only the groups before "::" are shown, never the host part after it.
    ['2001::5', '2001::…'],
    ['fe80::1', 'fe80::…'],
    ['::1', '::…'],
    // Junk is hidden, not half shown.
    ['not an ip', 'hidden'],
    ['203.0.113', 'hidden'],
    ['1.2.3.4:8080', 'hidden'],
    ['secret:data:here:and:more', 'hidden'],
    ['', MISSING],
    [null, MISSING],
    [undefined, MISSING],
  ] as const)('%j → %j', (ip, masked) => {
    expect(maskIp(ip)).toBe(masked);
  });

  it('never shows the last IPv4 octet or the IPv6 host part', () => {
    for (const ip of [
      '198.51.100.77',
      '2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff',
      '2001:db8::dead:beef',
      '1.2.3.4:5678',
    ]) {
      const masked = maskIp(ip);
      const last = ip.split(/[.:]/).pop()!;
      expect(masked.split(/[.:]/)).not.toContain(last);
      expect(masked).not.toBe(ip);
    }
  });
});

describe('visitorCard: IP addresses', () => {
  const IPS = ['203.0.113.45', '2001:db8:1:2::5', '2001::5', '1.2.3.4:8080', '', null];
  const visits = IPS.map((ip, i) => visit(i, { ip }));

  it('masks every IP cell when showIp is false, and says so', () => {
    const message = card({ visits }, { showIp: false });
    expect(column(message, 'IP')).toEqual(['203.0.113.x', '2001:db8:1:…', '2001::…', 'hidden', MISSING, MISSING]);
    const json = JSON.stringify(message);
    for (const ip of IPS) if (ip) expect(json).not.toContain(ip);
    expect(mrkdwnOf(message).join('\n')).toContain('(IP addresses masked)');
  });

  it('shows full IP addresses when showIp is true', () => {
    const message = card({ visits }, { showIp: true });
    expect(column(message, 'IP')).toEqual([
      '203.0.113.45',
      '2001:db8:1:2::5',
      '2001::5',
      '1.2.3.4:8080',
      MISSING,
      MISSING,
    ]);
    expect(mrkdwnOf(message).join('\n')).not.toContain('masked');
  });
});

describe('visitorCard: recent visits and buttons', () => {
  it('renders the visits newest first as a table, with paths, "direct" for no referrer, and numbered rows in the caption', () => {
    const message = card({ visits: [visit(0, { referrer: '' }), visit(1)] }, { visitsPage: 3 });
    expect(tableOf(message)).toEqual([
      ['Date (UTC)', 'Page', 'Referrer', 'Where', 'Browser', 'Device', 'IP'],
      [
        'Nov 21, 12:00',
        '/products/item-0?ref=x',
        'direct',
        'Amsterdam, Netherlands',
        'Firefox',
        'desktop, Linux',
        '203.0.113.45',
      ],
      [
        'Nov 21, 11:00',
        '/products/item-1?ref=x',
        'https://www.google.com/',
        'Amsterdam, Netherlands',
        'Firefox',
        'desktop, Linux',
        '203.0.113.45',
      ],
    ]);
    expect(mrkdwnOf(message)).toContain('*Recent visits* 21–22, newest first');
  });

  it('offers "Recent visits ▶" only when the page was full, carrying the next page', () => {
    const full = card({ visits: Array.from({ length: 10 }, (_, i) => visit(i)) }, { visitsPage: 2, visitId: 'vs_7' });
    const more = buttonsOf(full)[VISITOR_ACTIONS.more];
    expect(more?.text).toBe('Recent visits ▶');
    expect(decodeCardRef(more?.value)).toEqual({ visitorId: ID, page: 3, visitId: 'vs_7' });

    expect(hasAction(card({ visits: Array.from({ length: 9 }, (_, i) => visit(i)) }), VISITOR_ACTIONS.more)).toBe(
      false,
    );
    const none = card({ visits: [] });
    expect(hasAction(none, VISITOR_ACTIONS.more)).toBe(false);
    expect(mrkdwnOf(none)).toContain('*Recent visits:* none recorded.');
    expect(mrkdwnOf(card({ visits: [] }, { visitsPage: 2 }))).toContain('*Recent visits:* no more.');
  });

  it('offers "◀ Newer visits" past the first page, carrying the page before', () => {
    const second = card({ visits: [visit(0)] }, { visitsPage: 2, visitId: 'vs_7' });
    const newer = buttonsOf(second)[VISITOR_ACTIONS.newer];
    expect(newer?.text).toBe('◀ Newer visits');
    expect(decodeCardRef(newer?.value)).toEqual({ visitorId: ID, page: 1, visitId: 'vs_7' });
    expect(hasAction(card({ visits: [visit(0)] }), VISITOR_ACTIONS.newer)).toBe(false);
  });

  it('a card posted for everyone says who posted it', () => {
    expect(mrkdwnOf(card({}, { sharedBy: 'U_BOB', showIp: false })).join(' ')).toContain('shared by <@U_BOB>');
    expect(mrkdwnOf(card({}, { sharedBy: 'U1> <!channel' })).join(' ')).not.toContain('shared by');
  });

  it('offers "Post to channel" only when canShare, carrying the first page (what everyone should see first)', () => {
    expect(hasAction(card(), VISITOR_ACTIONS.share)).toBe(false);
    expect(blocksOf(card()).some((b) => b.type === 'actions')).toBe(false);
    const shareable = card({ visits: [visit(0)] }, { canShare: true, visitsPage: 4 });
    const share = buttonsOf(shareable)[VISITOR_ACTIONS.share];
    expect(share?.text).toBe('Post to channel');
    expect(decodeCardRef(share?.value)).toEqual({ visitorId: ID, page: 1, visitId: undefined });
    expect(hasAction(shareable, VISITOR_ACTIONS.more)).toBe(false);
  });
});

describe('encodeCardRef / decodeCardRef', () => {
  it.each([
    [ID, 1, undefined],
    [ID, 42, 'vs_abc.1:2'],
    ['v_' + 'x'.repeat(126), 10_000, 'vs_' + 'y'.repeat(125)],
  ])('round trips %s page %i visit %s', (visitorId, page, visitId) => {
    const value = encodeCardRef(visitorId, page, visitId);
    expect(decodeCardRef(value)).toEqual({ visitorId, page, visitId });
  });

  it.each([
    [undefined],
    [''],
    ['junk'],
    [`v1|${ID}|1`],
    [`v1|${ID}|1||extra`],
    [`v2|${ID}|1|`],
    ['v1||1|'],
    [`v1|${ID}||`],
    [`v1|${ID}|0|`],
    [`v1|${ID}|-1|`],
    [`v1|${ID}|1.5|`],
    [`v1|${ID}|two|`],
    [`v1|${ID}|10001|`],
    [`v1|${ID}|NaN|`],
  ])('rejects %j', (value) => {
    expect(decodeCardRef(value)).toBeNull();
  });
});

describe('visitorCard: within Slack limits at the extremes', () => {
  it('100 recent visits and 50 scraper extensions with long names and emoji: a valid message, one table of ≤ 100 rows', () => {
    const long = (i: number) => `🕷️ Scraper ${i} <!channel> & ` + '🚀x'.repeat(400);
    const extensions = Array.from({ length: 50 }, (_, i) => ({ id: `ext${i}`, name: long(i) }));
    const visits = Array.from({ length: 100 }, (_, i) =>
      visit(i, {
        url: `https://shop.example/${'🚀/deep'.repeat(300)}?q=${i}`,
        referrer: `https://ref.example/${'r'.repeat(3000)}`,
        ip: i % 2 ? '2001:db8:1:2:3:4:5:6' : '203.0.113.45',
        location: { city: '🏙️'.repeat(200), country: 'C'.repeat(500) },
        browser: { name: 'B'.repeat(1000) },
        device: { type: 'desktop'.repeat(100), os: { name: '🐧'.repeat(300) } },
      }),
    );
    const visitorId = 'v_' + 'z'.repeat(126);
    const p = profile({
      bot: { is_attacker: 'True'.repeat(500), is_threat: 'True', is_abuser: 'True', is_proxy: 'True' },
      scraping: { score: 0.99, visitor_type: '🤖'.repeat(1000) },
      vpn: { vpn: 'x'.repeat(3000) },
      extensions: { scraper_extension_list: extensions },
      adblock: { adblock: 'Yes'.repeat(100), adblock_extension: '🛡️'.repeat(2000) },
      record: {
        id: visitorId,
        first_seen: 'not a date '.repeat(300),
        last_seen: '2026-11-21T11:00:00.000Z',
        company: { name: '🏢 <&> '.repeat(1000) },
      },
      visits,
    });
    for (const showIp of [true, false]) {
      const message = card(
        {},
        {
          profile: { ...p, visitorId },
          visitsLimit: 100,
          visitsPage: 9999,
          visitId: 'vs_' + 'q'.repeat(125),
          canShare: true,
          demo: true,
          timeZone: 'Asia/Kathmandu',
          showIp,
        },
      );
      expect(validateMessage(message)).toEqual({ ok: true });
      expect(message.blocks.length).toBeLessThanOrEqual(50);
      const tables = blocksOf(message).filter((b) => b.type === 'table');
      expect(tables).toHaveLength(1);
      const rows = tableOf(message);
      expect(rows.length).toBeLessThanOrEqual(100);
      expect(rows.length).toBeGreaterThan(50);
      for (const row of rows) expect(row).toHaveLength(7);
      // Both buttons survive and still decode.
      const buttons = buttonsOf(message);
      expect(decodeCardRef(buttons[VISITOR_ACTIONS.more]?.value)).toEqual({
        visitorId,
        page: 10_000,
        visitId: 'vs_' + 'q'.repeat(125),
      });
      expect(decodeCardRef(buttons[VISITOR_ACTIONS.share]?.value)?.page).toBe(1);
      expect(headerOf(message)).toMatch(/^Threat · high severity: visitor v_z+/);
      expect(Array.from(message.text).length).toBeLessThanOrEqual(3000);
    }
  });
});
