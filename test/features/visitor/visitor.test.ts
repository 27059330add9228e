import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import type { Message } from '@lookout/sandbox/slack';
import type { Sandbox } from '../../support/sandbox.js';
import { CHANNEL, USER, hasAction, headerOf, mrkdwnOf, sandbox, tableOf, textsOf } from '../../support/sandbox.js';

const SECURITY = 'C_SECURITY';
let box: Sandbox & { logs: string[] };

beforeAll(async () => {
  // Security details: alice and carol, in #security only.
  box = await sandbox({
    apiTimeoutMs: 1_200,
    security: { channels: [SECURITY], users: ['U_ALICE', 'U_CAROL'], scrapingScoreThreshold: 0.8 },
  });
});
afterAll(async () => {
  await box?.stop();
});
beforeEach(() => {
  box.demo!.setFaults({});
});

async function visitor(text: string, channel = SECURITY, user = USER): Promise<Message> {
  const before = new Set(box.slack.messages(channel, { user }).map((m) => m.ts));
  const delivery = await box.slack.slash(channel, user, text, '/visitor');
  expect(delivery.status).toBe(200);
  return box.slack.waitForMessage(
    channel,
    (m) => !before.has(m.ts) && m.user !== user && m.via !== 'notice' && (!m.ephemeralTo || m.ephemeralTo === user),
  );
}

const all = (m: Message) => textsOf(m).join('\n');

describe('/visitor verdicts', () => {
  it.each([
    ['attacker', DEMO_VISITORS.attacker, 'Threat', ['flagged as attacker', 'flagged as a threat', 'proxy', 'VPN']],
    [
      'scraper',
      DEMO_VISITORS.scraper,
      'Suspicious',
      ['scraping score 0.97, type SCRAPER', '2 scraper extensions: Web Scraper, Data Miner', 'flagged as abuser'],
    ],
    ['VPN user', DEMO_VISITORS.vpn, 'Suspicious', ['VPN']],
    ['clean human', DEMO_VISITORS.human, 'Human', []],
    ['all-Unknown visitor', DEMO_VISITORS.unknown, 'Unknown', ['bot status unknown']],
  ] as const)('%s → %s', async (_name, id, verdict, reasons) => {
    const card = await visitor(id);
    expect(card.ephemeralTo).toBe(USER);
    expect(headerOf(card)).toMatch(new RegExp(`^${verdict}\\b.*visitor ${id}$`));
    const text = mrkdwnOf(card).join('\n');
    // The verdict is said once, in the header; why comes first, before the flags.
    expect(text).not.toContain('Verdict');
    expect(text.indexOf('*Why*')).toBeLessThan(text.indexOf('*Attacker*'));
    for (const reason of reasons) expect(text).toContain(reason);
    if (verdict === 'Human') expect(text).toContain('nothing flagged');
    // Every flag in words (the demo API says True, False or Unknown), the record and recent visits.
    expect(text).toMatch(/\*Attacker\*\n(yes|no|unknown)\n/);
    expect(text).not.toMatch(/\b(True|False)\b/);
    expect(text).toMatch(/\*First seen\*/);
    const visits = tableOf(card);
    expect(visits[0]).toEqual([
      expect.stringMatching(/^Date \(.+\)$/),
      'Page',
      'Referrer',
      'Where',
      'Browser',
      'Device',
      'IP',
    ]);
    expect(visits.length).toBeGreaterThan(1);
  });

  it('shows the full IP address in the ephemeral card', async () => {
    const card = await visitor(DEMO_VISITORS.human);
    expect(
      tableOf(card)
        .slice(1)
        .map((row) => row[6]),
    ).toContain('81.2.69.160');
  });

  it('passes visit_id to the lookups that take it', async () => {
    box.demo!.resetRequests();
    const visit = box.demo!.dataset.visitsOf(DEMO_VISITORS.vpn).at(-1)!;
    const card = await visitor(`${DEMO_VISITORS.vpn} visit ${visit.id}`);
    expect(mrkdwnOf(card).join(' ')).toContain(visit.id);
    const security = box.demo!.requests.filter((r) => r.path.startsWith('/security/'));
    expect(security).toHaveLength(5);
    for (const r of security) {
      if (r.path.startsWith('/security/scraping-status/')) expect(r.query.visit_id).toBeUndefined();
      else expect(r.query.visit_id).toBe(visit.id);
    }
  });

  it("a visit id the API does not know is said to be unknown, and the visitor's own verdict stands", async () => {
    const card = await visitor(`${DEMO_VISITORS.attacker} visit nope`);
    expect(headerOf(card)).toMatch(/^Threat · high severity: visitor v_demo_attacker$/);
    const text = mrkdwnOf(card).join('\n');
    expect(text).toContain('Visit `nope` is unknown for this visitor');
    expect(text).not.toContain('unavailable (not found)');
  });

  it('"Recent visits ▶" pages through the visits in place', async () => {
    const card = await visitor(DEMO_VISITORS.scraper);
    const first = tableOf(card).slice(1);
    expect(first).toHaveLength(10);
    const updates = card.updates;
    await box.slack.click(card, 'visitor.more');
    const next = await box.slack.waitFor(() => {
      const m = box.slack.messages(SECURITY, { user: USER }).find((x) => x.ts === card.ts);
      return m && m.updates > updates ? m : undefined;
    });
    const second = tableOf(next).slice(1);
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]![0]).not.toBe(first[0]![0]);
    expect(mrkdwnOf(next).join(' ')).toMatch(/Recent visits\* 11–/);
  });
});

describe('a way back to the card', () => {
  const replaced = (message: Message) => {
    const updates = message.updates;
    return () =>
      box.slack.waitFor(() => {
        const m = box.slack.messages(SECURITY, { user: USER }).find((x) => x.ts === message.ts);
        return m && m.updates > updates ? m : undefined;
      });
  };

  it('Trend on a card, then Show table, each offer "Back to card", which brings the card back in place', async () => {
    const card = await visitor(DEMO_VISITORS.scraper);
    const cardHeader = headerOf(card);
    let next = replaced(card);
    await box.slack.click(card, 'trend.open');
    const trend = await next();
    expect(headerOf(trend)).toMatch(/^Trend: Visits/);
    expect(hasAction(trend, 'visitor.back')).toBe(true);

    next = replaced(trend);
    await box.slack.click(trend, 'trend.table');
    const table = await next();
    expect(hasAction(table, 'visitor.back')).toBe(true);
    // The table's own Trend keeps the way back.
    expect(hasAction(table, 'trend.open')).toBe(true);

    next = replaced(table);
    await box.slack.click(table, 'visitor.back');
    const again = await next();
    expect(headerOf(again)).toBe(cardHeader);
    expect(tableOf(again)[0]).toContain('Page');
  });

  it('a tampered way back is refused as too old, and nothing is looked up', async () => {
    const card = await visitor(DEMO_VISITORS.human);
    const next = replaced(card);
    await box.slack.click(card, 'trend.open');
    const trend = await next();
    // A person who edits the button's value (the client never would).
    const live = box.slack.messages(SECURITY, { user: USER }).find((m) => m.ts === trend.ts)!;
    const button = (live.blocks as unknown as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'visitor.back')!;
    button.value = 'v1|<!channel>|1|';
    const requests = box.demo!.requests.length;
    const updates = live.updates;
    const seen = new Set(box.slack.messages(SECURITY, { user: USER }).map((m) => `${m.ts}:${m.updates}`));
    await box.slack.click(live, 'visitor.back');
    const answer = await box.slack.waitFor(() =>
      box.slack
        .messages(SECURITY, { user: USER })
        .find(
          (m) => !seen.has(`${m.ts}:${m.updates}`) && all(m).includes('too old to change (or it was tampered with)'),
        ),
    );
    expect(all(answer)).toContain('Run the command again');
    expect(box.demo!.requests.length).toBe(requests);
    if (answer.ts !== live.ts)
      expect(box.slack.messages(SECURITY, { user: USER }).find((m) => m.ts === live.ts)!.updates).toBe(updates);
  });
});

describe('partial answers', () => {
  it('one security endpoint down still gives a card, with that part marked', async () => {
    box.demo!.setFaults({ status500Until: 1000, paths: ['/security/vpn-status'] });
    const card = await visitor(DEMO_VISITORS.attacker);
    const text = mrkdwnOf(card).join('\n');
    expect(text).toMatch(/\*VPN\*\n_unavailable \(unavailable\)_/);
    expect(text).toContain('flagged as attacker');
    expect(text).toMatch(/vpn status unavailable/);
  });

  it('one slow endpoint times out and is marked, the rest shows', async () => {
    box.demo!.setFaults({ latencyMs: 2000, paths: ['/security/scraping-status'] });
    const card = await visitor(DEMO_VISITORS.human);
    const text = mrkdwnOf(card).join('\n');
    expect(text).toMatch(/\*Scraping score\*\n_unavailable \(timeout\)_/);
    expect(headerOf(card)).toMatch(/^Unknown/);
  });

  it('everything down is one clear error', async () => {
    box.demo!.setFaults({ status500Until: 10_000 });
    const card = await visitor(DEMO_VISITORS.human);
    expect(mrkdwnOf(card).join(' ')).toMatch(/unavailable right now/);
    expect(tableOf(card)).toEqual([]);
  });
});

describe('bad input', () => {
  it('an unknown visitor is "No visitor … found", with the id escaped', async () => {
    const logged = box.logs.length;
    const card = await visitor('v_nobody_x');
    expect(mrkdwnOf(card).join(' ')).toMatch(/No visitor `v_nobody_x` found/);
    // One line, with the request's id; the five 404s behind it are not errors.
    const lines = box.logs
      .slice(logged)
      .map((l) => JSON.parse(l) as { level: number; msg: string; requestId?: string });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'no such visitor')).toEqual([
      expect.objectContaining({ requestId: expect.any(String) }),
    ]);
  });

  it.each([
    ['a slash', 'v_1/../../admin'],
    ['dots', '..'],
    ['a query', 'v_1?x=1'],
    ['spaces', 'v 1 2'],
    ['300 characters', 'v'.repeat(300)],
    ['Slack syntax', '<!channel>'],
  ])('an id with %s gets a usage line and never reaches the API', async (_name, id) => {
    box.demo!.resetRequests();
    const card = await visitor(id);
    const text = mrkdwnOf(card).join('\n');
    expect(text).toMatch(/Usage: `\/visitor &lt;visitor_id&gt;/);
    expect(text).not.toContain('<!channel>');
    expect(box.demo!.requests).toHaveLength(0);
  });
});

describe('access control', () => {
  it('refuses a user outside SECURITY_USERS, naming who to ask', async () => {
    box.demo!.resetRequests();
    const card = await visitor(DEMO_VISITORS.attacker, SECURITY, 'U_BOB');
    expect(all(card)).toMatch(/restricted/);
    expect(all(card)).toContain('<@U_ALICE>');
    expect(box.demo!.requests).toHaveLength(0);
  });

  it('refuses outside SECURITY_CHANNELS, naming where it works', async () => {
    const card = await visitor(DEMO_VISITORS.attacker, CHANNEL, USER);
    expect(all(card)).toContain('<#C_SECURITY>');
    expect(tableOf(card)).toEqual([]);
  });

  it('posting to the channel masks IP addresses; the ephemeral card has them in full', async () => {
    const card = await visitor(DEMO_VISITORS.attacker);
    expect(hasAction(card, 'visitor.share')).toBe(true);
    const ips = tableOf(card)
      .slice(1)
      .map((row) => row[6]);
    expect(ips).toContain('185.220.101.47');
    await box.slack.click(card, 'visitor.share');
    const shared = await box.slack.waitForMessage(
      SECURITY,
      (m) => !m.ephemeralTo && (headerOf(m) ?? '').startsWith('Threat'),
    );
    const posted = tableOf(shared)
      .slice(1)
      .map((row) => row[6]);
    expect(posted.length).toBeGreaterThan(0);
    expect(posted).toContain('185.220.101.x');
    expect(JSON.stringify(shared)).not.toContain('185.220.101.47');
    expect(JSON.stringify(shared)).not.toContain('2a02:418:6a04:178::a3');
    expect(hasAction(shared, 'visitor.share')).toBe(false);
  });
});

describe('from a report', () => {
  it('"Inspect visitor" on a visits report opens the card', async () => {
    const before = new Set(box.slack.messages(SECURITY, { user: USER }).map((m) => m.ts));
    await box.slack.slash(SECURITY, USER, `visits all visitor:${DEMO_VISITORS.scraper} top 5`);
    const report = await box.slack.waitForMessage(
      SECURITY,
      (m) => !before.has(m.ts) && headerOf(m)?.startsWith('Visits') === true,
    );
    await box.slack.select(report, 'report.inspect', DEMO_VISITORS.scraper);
    const card = await box.slack.waitForMessage(SECURITY, (m) =>
      (headerOf(m) ?? '').endsWith(`visitor ${DEMO_VISITORS.scraper}`),
    );
    expect(headerOf(card)).toMatch(/^Suspicious/);
  });
});
