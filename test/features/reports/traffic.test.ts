import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { REPORT_IDS, REPORTS } from '../../../src/kernel/catalog.js';
import type { AggregateRow, PageRow } from '../../../src/platform/api/schemas.js';
import { DEMO_VISITORS, EMOJI_CAMPAIGN, HOSTILE_CAMPAIGN } from '@lookout/sandbox/demo-api';
import type { Message } from '@lookout/sandbox/slack';
import type { Sandbox } from '../../support/sandbox.js';
import { CHANNEL, USER, hasAction, headerOf, mrkdwnOf, sandbox, tableOf, textsOf } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { changed, run } from '../../support/answers.js';

let box: Sandbox & { logs: string[] };
let api: AnalyticsApi;
const ALL = { startDate: '1970-01-01', endDate: '2100-01-01' };

beforeAll(async () => {
  box = await sandbox();
  api = new AnalyticsApi({ baseUrl: box.demo!.url, apiKey: box.secrets.apiKey });
});

afterAll(async () => {
  await api?.close();
  await box?.stop();
});

beforeEach(() => box.demo!.setFaults({}));

function find(ts: string): Message {
  const message = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === ts);
  if (!message) throw new Error(`message ${ts} is gone`);
  return message;
}

/** Clicks Drill down and waits for its modal to have the rows. */
async function openDrill(message: Message) {
  await box.slack.click(message, 'report.drill');
  return box.slack.waitFor(() => {
    const v = box.slack.openViews(USER).at(-1);
    return v && JSON.stringify(v.blocks).includes('"action_id":"row"') ? v : undefined;
  });
}

const names = (message: Message) =>
  tableOf(message)
    .slice(1)
    .map((row) => row[0]);

describe('/traffic answers every report', () => {
  it.each(REPORT_IDS)('%s', async (id) => {
    const message = await run(box, `${id} all top 5`);
    expect(message.ephemeralTo).toBe(USER);
    expect(headerOf(message)).toBe(`${REPORTS[id].title} · All time`);
    const table = tableOf(message);
    expect(table[0]).toEqual(expect.arrayContaining(REPORTS[id].columns.map((c) => c.label)));
    expect(table).toHaveLength(6);
    expect(mrkdwnOf(message).join(' ')).toMatch(/demo data/);
    expect(message.text.length).toBeGreaterThan(0);
  });

  it('answers in a data_table whose numbers sort by value, durations in words, and a bar against the top row', async () => {
    const message = await run(box, 'countries all top 3');
    const table = (message.blocks ?? []).find((b) => (b as { type: string }).type === 'data_table') as {
      rows: { type: string; value?: number; text: string }[][];
      page_size: number;
    };
    expect(table.page_size).toBe(3);
    expect(table.rows[1]![1]).toMatchObject({ type: 'raw_number', value: expect.any(Number) });
    expect(table.rows[1]![1]!.text).toBe(table.rows[1]![1]!.value!.toLocaleString('en-US'));
    expect(table.rows[1]![3]!.type).toBe('raw_number');
    const [, first, second] = tableOf(message);
    expect(first![3]).toMatch(/^(\d+m \d\ds|\d+s|\d+h \d\dm)$/);
    expect(first![4]!.length).toBeGreaterThanOrEqual(second![4]!.length);
    expect(first![4]).toMatch(/^█+$/);
  });

  it('a bar has the same length on every page and under any sort: it measures against the top row of the whole report', async () => {
    const first = await run(box, 'sources last30d top 3');
    const page1 = tableOf(first); // the message is updated in place: keep page 1 as it was
    const second = await changed(box, first, () => box.slack.click(first, 'report.next'));
    const page2 = tableOf(second);
    const countOf = (table: string[][]) => Number(table[1]![1]!.replace(/,/g, ''));
    expect(page1[1]!.at(-1)).toMatch(/^█{10}$/);
    // Page 2's first row is smaller than page 1's top: its bar is shorter, in proportion.
    expect(countOf(page2)).toBeLessThan(countOf(page1));
    const expected = (countOf(page2) / countOf(page1)) * 10;
    const drawn = [...page2[1]!.at(-1)!].reduce(
      (n, ch) => n + (ch === '█' ? 1 : Math.max(0, ' ▏▎▍▌▋▊▉'.indexOf(ch)) / 8),
      0,
    );
    expect(Math.abs(drawn - expected)).toBeLessThanOrEqual(0.2);
    const byName = await run(box, 'sources last30d by name asc top 3');
    expect(tableOf(byName)[1]!.at(-1)).not.toMatch(/^█{10}$/);
  });

  it('ranks by time spent only the rows with visits enough, and says which under the table', async () => {
    box.demo!.resetRequests();
    const message = await run(box, 'pages all by duration top 10');
    const asked = box.demo!.requests.find((r) => r.path === '/pages')!;
    const range = { startDate: asked.query.start_date!, endDate: asked.query.end_date! };
    const every = (await api.report('pages', { ...range, limit: 1000 })) as PageRow[];
    expect(every.length).toBeLessThan(1000);
    const total = every.reduce((n, r) => n + r.total, 0);
    const min = Math.max(10, Math.ceil(total / 100));
    const table = (message.blocks ?? []).find((b) => (b as { type: string }).type === 'data_table') as {
      rows: { value?: number }[][];
    };
    const shown = table.rows.slice(1).map((row) => ({ visits: row[1]!.value!, avg: row[3]!.value! }));
    const ranked = every.filter((r) => r.total >= min).sort((a, b) => b.avg_duration - a.avg_duration);
    // The demo's longest averages belong to pages of a few visits: those are left out.
    expect(every.some((r) => r.total < min && r.avg_duration > ranked[0]!.avg_duration)).toBe(true);
    expect(shown).toHaveLength(10);
    expect(shown.map((r) => r.avg)).toEqual(ranked.slice(0, 10).map((r) => r.avg_duration));
    expect(shown.every((r) => r.visits >= min)).toBe(true);
    expect(mrkdwnOf(message).join('\n')).toContain(
      `Pages with fewer than ${min.toLocaleString('en-US')} visits (1% of the ${total.toLocaleString('en-US')} in this report, rounded up) are not ranked by time`,
    );
    // Shortest first ranks the same rows, the other way.
    const shortest = await run(box, 'pages all by duration asc top 3');
    expect(
      tableOf(shortest)
        .slice(1)
        .every((row) => Number(row[1]!.replace(/,/g, '')) >= min),
    ).toBe(true);
  });

  it('says why a ranking by time spent is empty when no row has visits enough', async () => {
    const message = await run(box, `pages all visitor:${DEMO_VISITORS.human} by duration`);
    expect(tableOf(message)).toEqual([]);
    expect(mrkdwnOf(message).join('\n')).toMatch(/No pages had 10 visits or more, so none is ranked by time/);
  });

  it('a bar says what it measures against: by time spent, the top row is not the one with the most visits, and its bar is not full', async () => {
    const byVisits = tableOf(await run(box, 'sources last30d top 3'));
    const most = Number(byVisits[1]![1]!.replace(/,/g, ''));
    const byTime = tableOf(await run(box, 'sources last30d by duration top 10'));
    expect(byTime[0]!.at(-1)).toBe('vs most visits');
    expect(byVisits[0]!.at(-1)).toBe('vs most visits');
    // Each bar is its row's visits against the most any row has (the top row by visits), whatever the sort.
    const drawn = (bar: string) =>
      [...bar].reduce((n, ch) => n + (ch === '█' ? 1 : Math.max(0, ' ▏▎▍▌▋▊▉'.indexOf(ch)) / 8), 0);
    for (const row of byTime.slice(1)) {
      const visits = Number(row[1]!.replace(/,/g, ''));
      expect(Math.abs(drawn(row.at(-1)!) - (visits / most) * 10)).toBeLessThanOrEqual(0.2);
    }
    expect(Number(byTime[1]![1]!.replace(/,/g, ''))).toBeLessThan(most);
    // The context line names the API's days (the demo API counts in UTC).
    expect(mrkdwnOf(await run(box, 'sources last30d top 3'))[0]).toContain(
      ' · days in UTC, as the analytics API counts them',
    );
  });

  it('answers a usage error with the nearest word and the usage line', async () => {
    const message = await run(box, 'sorces last7d');
    const text = mrkdwnOf(message).join('\n');
    expect(text).toMatch(/did you mean `sources`/i);
    expect(text).toMatch(/Usage: `\/traffic &lt;report&gt;/);
  });

  it('answers a bad date, a malformed filter, a bad sort key and a bad top', async () => {
    for (const [input, pattern] of [
      ['pages 2024-02-30', /2024-02-30/],
      ['pages countrry:US', /countrry/],
      ['pages by bananas', /bananas/],
      ['pages top 500', /500|1 to 100/],
    ] as const) {
      const message = await run(box, input);
      expect(mrkdwnOf(message).join('\n')).toMatch(pattern);
      expect(tableOf(message)).toEqual([]);
    }
  });

  it('posts straight to the channel with `public`', async () => {
    const message = await run(box, 'browsers all top 3 public');
    expect(message.ephemeralTo).toBeUndefined();
    expect(hasAction(message, 'report.share')).toBe(false);
  });

  it('"Post to channel" posts the report for everyone and removes the ephemeral copy', async () => {
    const message = await run(box, 'devices all top 3');
    const before = box.slack.messages(CHANNEL).length;
    await box.slack.click(message, 'report.share');
    const shared = await box.slack.waitForMessage(
      CHANNEL,
      (m) => !m.ephemeralTo && headerOf(m) === 'Devices · All time' && m.ts !== message.ts,
    );
    expect(tableOf(shared)).toEqual(tableOf(message));
    expect(mrkdwnOf(shared).join(' ')).toContain(`shared by <@${USER}>`);
    expect(mrkdwnOf(message).join(' ')).not.toContain('shared by');
    await box.slack.waitFor(() => !box.slack.messages(CHANNEL, { user: USER }).some((m) => m.ts === message.ts));
    expect(box.slack.messages(CHANNEL).length).toBeGreaterThan(before);
  });
});

describe('paging', () => {
  it('forward through a whole report, then back, loses and repeats no row', async () => {
    const expected = ((await api.report('states', { ...ALL, limit: 1000 })) as AggregateRow[]).map((r) => r.name);
    expect(expected.length).toBeGreaterThan(12);
    let message = await run(box, 'states all top 12');
    const seen: string[][] = [names(message) as string[]];
    let pages = 1;
    while (hasAction(message, 'report.next')) {
      message = await changed(box, message, () => box.slack.click(message, 'report.next'));
      seen.push(names(message) as string[]);
      pages++;
    }
    expect(seen.flat()).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 12) + (expected.length % 12 === 0 ? 1 : 0));

    message = await changed(box, message, () => box.slack.click(message, 'report.prev'));
    expect(names(message)).toEqual(seen[seen.length - 2]);
    expect(mrkdwnOf(message)[0]).toMatch(new RegExp(`Rows ${(pages - 2) * 12 + 1}–`));
  });

  it('Prev is absent on page 1; Next is absent once a page is short', async () => {
    const message = await run(box, 'devices all top 100');
    expect(hasAction(message, 'report.prev')).toBe(false);
    expect(hasAction(message, 'report.next')).toBe(false);
  });
});

describe('refining', () => {
  it('the range menu changes only the range', async () => {
    const message = await run(box, 'sources all top 5');
    const next = await changed(box, message, () => box.slack.select(message, 'report.range', 'r:yesterday'));
    expect(headerOf(next)).toMatch(/^Sources · Yesterday/);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const rows = (await api.report('sources', {
      startDate: yesterday,
      endDate: yesterday,
      limit: 5,
    })) as AggregateRow[];
    expect(names(next)).toEqual(rows.map((r) => r.name));
  });

  it('the sort menu changes only the order', async () => {
    const message = await run(box, 'browsers all top 100');
    const next = await changed(box, message, () => box.slack.select(message, 'report.sort', 's:name:asc'));
    const sorted = [...(names(message) as string[])].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
    expect(names(next)).toEqual(sorted);
    expect(mrkdwnOf(next)[0]).toMatch(/sorted by Name ↑/);
  });

  it('Filter… opens a modal whose filter narrows the report', async () => {
    const message = await run(box, 'countries all top 10');
    await box.slack.click(message, 'report.filter');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    const next = await changed(box, message, () =>
      box.slack.submit(view, {
        target: 'country.name',
        operator: 'is_any_of',
        values: 'Germany, France',
        group: 'all',
      }),
    );
    expect((names(next) as string[]).sort()).toEqual(['France', 'Germany']);
    expect(mrkdwnOf(next)[0]).toMatch(/country is `Germany` or `France`/);
    expect(box.slack.openViews(USER)).toHaveLength(0);
  });

  it('a filter can be removed in the modal', async () => {
    const message = await run(box, 'countries all country:Germany browser:Firefox');
    await box.slack.click(message, 'report.filter');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    expect(textsOf(view).join(' ')).toMatch(/browser is `Firefox`/);
    await box.slack.click(view, 'filter.remove.0.1');
    const updated = await box.slack.waitFor(() => {
      const v = box.slack.openViews(USER).at(-1);
      return v && !textsOf(v).join(' ').includes('Firefox') ? v : undefined;
    });
    const next = await changed(box, message, () => box.slack.submit(updated, { operator: 'is_any_of', group: 'all' }));
    expect(mrkdwnOf(next)[0]).toMatch(/country is `Germany`/);
    expect(mrkdwnOf(next)[0]).not.toMatch(/Firefox/);
  });

  it('the modal refuses a filter without values, and keeps the report as it was', async () => {
    const message = await run(box, 'countries all top 3');
    const updatesBefore = message.updates;
    await box.slack.click(message, 'report.filter');
    const view = await box.slack.waitFor(() => box.slack.openViews(USER).at(-1));
    const delivery = await box.slack.submit(view, { target: 'city.name', operator: 'is_any_of', group: 'all' });
    expect(delivery.json).toMatchObject({
      response_action: 'errors',
      errors: { f_values: expect.stringMatching(/value/) },
    });
    expect(find(message.ts).updates).toBe(updatesBefore);
  });

  it('Drill down turns a row into a filter and breaks it down by another report', async () => {
    const message = await run(box, 'countries all top 10');
    const view = await openDrill(message);
    const index = (names(message) as string[]).indexOf('Germany');
    expect(index).toBeGreaterThanOrEqual(0);
    const next = await changed(box, message, () => box.slack.submit(view, { row: String(index), report: 'cities' }));
    expect(headerOf(next)).toBe('Cities · All time');
    expect(mrkdwnOf(next)[0]).toMatch(/country is `Germany`/);
    const german = (await api.report('cities', {
      ...ALL,
      limit: 10,
      filterGroups: [{ filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['Germany'] }] }],
    })) as AggregateRow[];
    expect(names(next)).toEqual(german.map((r) => r.name));
  });

  it('a drill-down from rows sorted by name shows the breakdown by most visits', async () => {
    const message = await run(box, 'countries all by name asc top 10');
    const view = await openDrill(message);
    const next = await changed(box, message, () => box.slack.submit(view, { row: '0', report: 'cities' }));
    expect(mrkdwnOf(next)[0]).toMatch(/sorted by Visits ↓/);
    const visits = tableOf(next)
      .slice(1)
      .map((r) => Number(r[1]!.replace(/,/g, '')));
    expect(visits).toEqual([...visits].sort((a, b) => b - a));
  });

  it('a tampered button value gets a polite "too old" answer', async () => {
    const message = await run(box, 'countries all top 3');
    // As if the message came from an older version, or its value was altered.
    const stored = box.slack.workspace.message(CHANNEL, message.ts)!;
    const next = JSON.stringify(stored.blocks).replace(
      /("action_id":"report\.next"[^}]*?"value":")[^"]*"/,
      '$1q1.bm90LWEtcXVlcnk"',
    );
    stored.blocks = JSON.parse(next);
    expect(JSON.stringify(stored.blocks)).toContain('q1.bm90LWEtcXVlcnk');
    const reply = await changed(box, message, () => box.slack.click(message, 'report.next'));
    expect(mrkdwnOf(reply).join(' ')).toMatch(/too old/);
  });
});

describe('Slack request signing', () => {
  function post(body: string, headers: Record<string, string>) {
    return fetch(box.lookout.requestUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  }
  const body = new URLSearchParams({
    command: '/traffic',
    text: 'sources',
    user_id: USER,
    channel_id: CHANNEL,
    team_id: 'T_LOOKOUT',
    response_url: 'http://127.0.0.1:9/never',
    trigger_id: 'x',
  }).toString();
  const sign = (secret: string, ts: number) =>
    `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;

  it('refuses a forged signature with 401 and changes nothing', async () => {
    const before = box.slack.messages(CHANNEL, { user: USER }).length;
    const requests = box.demo!.requests.length;
    const ts = Math.floor(Date.now() / 1000);
    const response = await post(body, {
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': sign('not-the-secret', ts),
    });
    expect(response.status).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(box.slack.messages(CHANNEL, { user: USER })).toHaveLength(before);
    expect(box.demo!.requests.length).toBe(requests);
  });

  it('refuses a correctly signed request older than five minutes', async () => {
    const ts = Math.floor(Date.now() / 1000) - 6 * 60;
    const response = await post(body, {
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': sign(box.secrets.signingSecret, ts),
    });
    expect(response.status).toBe(401);
  });

  it('accepts the same request signed now', async () => {
    const ts = Math.floor(Date.now() / 1000);
    const response = await post(body, {
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': sign(box.secrets.signingSecret, ts),
    });
    expect(response.status).toBe(200);
  });
});

describe('when the API misbehaves, the person is told', () => {
  it.each([
    ['an outage', { status500Until: 1000 }, /unavailable right now/],
    ['a 429 storm', { rateLimit: { count: 1000, retryAfterSeconds: 120 } }, /rate-limiting/],
    ['a malformed response', { malformedJson: true }, /could not read/],
    ['a drifted schema', { drift: true }, /could not read/],
  ] as const)('%s', async (_name, faults, pattern) => {
    box.demo!.setFaults(faults);
    const message = await run(box, 'channels all');
    expect(mrkdwnOf(message).join(' ')).toMatch(pattern);
    expect(tableOf(message)).toEqual([]);
  });

  it('a timeout', async () => {
    box.demo!.setFaults({ hang: true });
    const message = await run(box, 'channels all');
    expect(mrkdwnOf(message).join(' ')).toMatch(/took too long/);
  });

  it('logs the failure, and no secret reaches a log line or a message', async () => {
    const secrets = Object.values(box.secrets);
    for (const line of box.logs) for (const secret of secrets) expect(line).not.toContain(secret);
    const failed = box.logs
      .map((l) => JSON.parse(l) as { msg: string; requestId?: string })
      .filter((l) => l.msg === 'report failed');
    expect(failed.length).toBeGreaterThan(0);
    // The failure is logged with the id of the Slack request it answered.
    const requests = new Set(
      box.logs
        .map((l) => JSON.parse(l) as { msg: string; requestId?: string })
        .filter((l) => l.msg === 'slack request')
        .map((l) => l.requestId),
    );
    for (const line of failed) expect(requests.has(line.requestId)).toBe(true);
    for (const m of box.slack.messages(CHANNEL, { user: USER })) {
      for (const secret of secrets) expect(JSON.stringify(m)).not.toContain(secret);
    }
  });
});

describe('hostile and oversized strings', () => {
  it('a campaign named <!channel> is shown, never acted on', async () => {
    const message = await run(box, 'campaigns all top 100');
    const cells = tableOf(message).flat();
    expect(cells).toContain(HOSTILE_CAMPAIGN);
    expect(cells).toContain(EMOJI_CAMPAIGN);
    for (const text of mrkdwnOf(message)) expect(text).not.toMatch(/<!channel>|<https?:/);
  });

  it('filter values with Slack syntax and emoji are escaped in mrkdwn', async () => {
    const message = await run(box, 'campaigns all campaign:"<!channel> launch" or campaign~"🚀"');
    const context = mrkdwnOf(message)[0]!;
    expect(context).toContain('&lt;!channel&gt; launch');
    expect(context).toContain('🚀');
    expect(context).not.toContain('<!channel>');
    expect(new Set(names(message))).toEqual(new Set([HOSTILE_CAMPAIGN, EMOJI_CAMPAIGN]));
  });

  it('a page URL holding <https://evil.example|click> stays text', async () => {
    const message = await run(box, 'pages all page~evil top 5');
    expect(tableOf(message).flat().join(' ')).toContain('<https://evil.example|click>');
    for (const text of mrkdwnOf(message)) expect(text).not.toMatch(/<https:\/\/evil/);
  });

  it('a 3,000-character filter value is truncated and accepted by Slack', async () => {
    const long = 'x'.repeat(3000);
    const message = await run(box, `pages all page~${long}`);
    expect(message.blocks?.length).toBeGreaterThan(0);
    for (const text of mrkdwnOf(message)) expect(text.length).toBeLessThanOrEqual(3000);
    expect(mrkdwnOf(message)[0]).toContain('…');
  });
});

describe('a query too long to travel in the message', () => {
  // 30 filters of 60 characters: the query encodes to more than a button value (2,000) holds.
  const longFilters = Array.from(
    { length: 30 },
    (_, i) => `page~/a/${'x'.repeat(50)}-${String(i).padStart(2, '0')}`,
  ).join(' or ');
  const stashed = async () => {
    const message = await run(box, `pages all ${longFilters} or page~/ top 3`);
    const values = JSON.stringify(message.blocks).match(/"value":"(@[^"]+)"/g) ?? [];
    expect(values.length).toBeGreaterThan(0);
    return message;
  };

  it('is kept in the store; its buttons and menus carry only the id, and a click finds it', async () => {
    const message = await stashed();
    const menus = (message.blocks as { type: string; block_id?: string }[]).find((b) => b.block_id?.startsWith('rq|'));
    expect(menus?.block_id).toMatch(/^rq\|@[A-Za-z0-9_-]{12}$/);
    const { rows } = await box.lookout.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM query_stash');
    expect(rows[0]!.n).toBeGreaterThan(0);

    const next = await changed(box, message, () => box.slack.click(message, 'report.next'));
    expect(mrkdwnOf(next).join(' ')).toMatch(/Rows 4–/);
    const sorted = await changed(box, next, () => box.slack.select(next, 'report.sort', 's:full_url:asc'));
    expect(mrkdwnOf(sorted).join(' ')).toMatch(/sorted by Page ↑/);
    expect(mrkdwnOf(sorted).join(' ')).toMatch(/page contains `\/a\/x+-00`/);
  });

  it.each([
    ['an id the store does not have', '@AAAAAAAAAAAA'],
    ['an id that is not an id', '@../../etc/passwd'],
    ['an empty id', '@'],
  ])('a forged value (%s) gets "too old", and nothing else happens', async (_what, forged) => {
    const message = await stashed();
    const live = find(message.ts);
    const next = JSON.stringify(live.blocks).replace(
      /"action_id":"report\.next","value":"@[^"]+"/,
      `"action_id":"report.next","value":"${forged}"`,
    );
    live.blocks = JSON.parse(next) as typeof live.blocks;
    const calls = box.demo!.requests.length;
    const reply = await changed(box, live, () => box.slack.click(live, 'report.next'));
    expect(textsOf(reply).join(' ')).toMatch(/too old to change/);
    expect(box.demo!.requests.length).toBe(calls);
  });
});

describe('a query stashed in one workspace', () => {
  it('is not found from another: its id on a button clicked in T_OTHER gets "too old", and the API is not asked', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `page~/b/${'y'.repeat(50)}-${i}`).join(' or ');
    const ours = await run(box, `pages all ${long} or page~/ top 3`);
    const ref = /"action_id":"report\.next","value":"(@[^"]+)"/.exec(JSON.stringify(ours.blocks))?.[1];
    expect(ref).toMatch(/^@[A-Za-z0-9_-]{12}$/);

    const other = box.slack.team('T_OTHER');
    const where = 'C_OTHER_GENERAL';
    await other.slash(where, 'U_DANA', 'pages all top 3');
    const theirs = await until(
      () =>
        other
          .messages(where, { user: 'U_DANA' })
          .find((m) => m.ephemeralTo === 'U_DANA' && hasAction(m, 'report.next')),
      "Dana's report",
    );
    theirs.blocks = JSON.parse(
      JSON.stringify(theirs.blocks).replace(
        /"action_id":"report\.next","value":"[^"]+"/,
        `"action_id":"report.next","value":"${ref}"`,
      ),
    ) as typeof theirs.blocks;
    const updates = theirs.updates;
    const calls = box.demo!.requests.length;
    await other.click(theirs, 'report.next');
    const reply = await until(
      () => other.messages(where, { user: 'U_DANA' }).find((m) => m.ts === theirs.ts && m.updates > updates),
      "the answer to Dana's click",
    );
    expect(textsOf(reply).join(' ')).toMatch(/too old to change/);
    expect(box.demo!.requests.length).toBe(calls);
    // The same id, clicked where it was stashed, still finds its query.
    const next = await changed(box, ours, () => box.slack.click(ours, 'report.next'));
    expect(mrkdwnOf(next).join(' ')).toMatch(/Rows 4–/);
  });
});

describe('a click no listener knows', () => {
  it('is acked (Slack shows no error), answered with nothing, and logged', async () => {
    const message = await run(box, 'sources all top 3');
    const live = find(message.ts);
    live.blocks = JSON.parse(
      JSON.stringify(live.blocks).replace('"action_id":"report.share"', '"action_id":"report.retired"'),
    ) as typeof live.blocks;
    const before = box.slack.messages(CHANNEL, { user: USER }).length;
    const delivery = await box.slack.click(live, 'report.retired');
    expect(delivery.status).toBe(200);
    const logged = () => box.logs.some((l) => l.includes('no listener for the action report.retired'));
    expect(await until(logged, 'the log line')).toBe(true);
    expect(box.slack.messages(CHANNEL, { user: USER })).toHaveLength(before);
    expect(find(message.ts).updates).toBe(message.updates);
  });
});
