/**
 * The sandbox's browser UI over HTTP, without a browser: the page and its files, the
 * JSON endpoints that drive the offline Slack, and the event stream that follows it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.js';
import { startTestSandbox as startSandbox, type Sandbox } from '../support/sandbox.js';

type Json = Record<string, unknown>;
interface UiMessage {
  ts: string;
  channel: string;
  text: string;
  ephemeral: boolean;
  updates: number;
  blocks?: Json[];
}

let box: Sandbox;
let base: string;

beforeAll(async () => {
  box = await startSandbox({ log: createLogger({ level: 'silent' }), scheduler: false });
  base = box.slack.url;
});

afterAll(async () => {
  await box?.stop();
});

async function post(path: string, body: unknown, type = 'application/json'): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

async function get(path: string): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, json: (await res.json()) as Json };
}

function tableRows(m: UiMessage): string[][] {
  const table = (m.blocks ?? []).find((b) => b.type === 'table' || b.type === 'data_table') as
    { rows: { text: string }[][] } | undefined;
  return table ? table.rows.map((r) => r.map((c) => c.text)) : [];
}

function contextOf(m: UiMessage): string {
  const context = (m.blocks ?? []).find((b) => b.type === 'context') as { elements: { text: string }[] } | undefined;
  return context?.elements.map((e) => e.text).join(' ') ?? '';
}

/** Reads server-sent events from /ui/events until `until` says stop (or the time runs out). */
async function collectEvents(
  user: string,
  until: (events: Array<{ event: string; data: Json }>) => boolean,
  act: () => Promise<unknown>,
  timeoutMs = 10_000,
) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: Array<{ event: string; data: Json }> = [];
  try {
    const res = await fetch(`${base}/ui/events?user=${user}`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let acted = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const chunk = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(chunk)?.[1];
        const data = /^data: (.*)$/m.exec(chunk)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) as Json });
      }
      if (!acted && events.some((e) => e.event === 'hello')) {
        acted = true;
        await act();
      }
      if (until(events)) break;
    }
    return events;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe('the page', () => {
  it('GET / returns the HTML page', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await res.text();
    expect(html).toMatch(/<!doctype html>/i);
    expect(html).toContain('data-testid="composer-input"');
    expect(html).toContain('/ui/assets/app.js');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it.each([
    ['app.js', 'text/javascript; charset=utf-8'],
    ['blocks.js', 'text/javascript; charset=utf-8'],
    ['mrkdwn.js', 'text/javascript; charset=utf-8'],
    ['style.css', 'text/css; charset=utf-8'],
    ['favicon.svg', 'image/svg+xml'],
  ])('serves %s as %s', async (file, type) => {
    const res = await fetch(`${base}/ui/assets/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await res.text()).length).toBeGreaterThan(100);
  });

  it('serves nothing else from the folder, and no external URLs are loaded', async () => {
    expect((await fetch(`${base}/ui/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${base}/ui/assets/..%2Fui-routes.ts`)).status).toBe(404);
    expect((await fetch(`${base}/ui/assets/index.ts`)).status).toBe(404);
    for (const file of ['app.js', 'blocks.js', 'mrkdwn.js', 'style.css']) {
      const text = await (await fetch(`${base}/ui/assets/${file}`)).text();
      expect(text).not.toMatch(/(src|href|url)\s*[=(]\s*['"]?https?:/i);
      if (file.endsWith('.js')) expect(text).not.toMatch(/\.innerHTML\s*=|insertAdjacentHTML|outerHTML\s*=/);
    }
  });

  it('a permalink opens the page too', async () => {
    const res = await fetch(`${base}/archives/C_MARKETING/p1732200000000100`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it("GET /ui/emoji.json has Slack's shortcodes (emojibase-data), every one Lookout sends among them", async () => {
    const { status, json } = await get('/ui/emoji.json');
    expect(status).toBe(200);
    expect(Object.keys(json).length).toBeGreaterThan(1500);
    expect(json.rotating_light).toBe('🚨');
    for (const [code, char] of [
      ['white_check_mark', '✅'],
      ['thumbsup', '👍'],
      ['+1', '👍'],
      ['shield', '🛡'],
    ])
      expect(String(json[code!]).startsWith(char!), code).toBe(true);
    const sent = new Set<string>();
    for (const file of readdirSync('src', { recursive: true, withFileTypes: true })) {
      if (file.isFile() && file.name.endsWith('.ts') && !join(file.parentPath, file.name).includes('sandbox')) {
        for (const m of readFileSync(join(file.parentPath, file.name), 'utf8').matchAll(/:([a-z][a-z0-9_]+):/g))
          sent.add(m[1]!);
      }
    }
    for (const notEmoji of ['00', 'db8', 'ffff']) sent.delete(notEmoji); // a clock time and IPv6 addresses
    expect(sent.size).toBeGreaterThan(8);
    expect([...sent].filter((code) => !Object.hasOwn(json, code))).toEqual([]);
  });

  it('GET /ui/workspace lists the people and the channels', async () => {
    const { status, json } = await get('/ui/workspace');
    expect(status).toBe(200);
    expect(json.default_user).toBe('U_ALICE');
    const channels = (json.channels as Json[]).map((c) => c.name);
    expect(channels).toEqual(expect.arrayContaining(['general', 'marketing', 'security']));
    const people = (json.users as Json[]).filter((u) => !u.is_bot).map((u) => u.name);
    expect(people).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));
  });
});

describe('driving the app', () => {
  let report: UiMessage;

  it('POST /ui/command runs /traffic and the report arrives as a server-sent event', async () => {
    let answer: Json | undefined;
    const events = await collectEvents(
      'U_ALICE',
      (list) =>
        list.some(
          (e) => e.event === 'message' && (e.data.message as UiMessage).blocks?.some((b) => b.type === 'data_table'),
        ),
      async () => {
        const { status, json } = await post('/ui/command', {
          channel: 'C_MARKETING',
          user: 'U_ALICE',
          text: '/traffic sources last7d',
        });
        answer = json;
        expect(status).toBe(200);
      },
    );
    expect(answer).toMatchObject({ ok: true, delivery: { kind: 'slash_command', status: 200 } });
    const message = events
      .map((e) => e.data.message as UiMessage)
      .find((m) => m?.blocks?.some((b) => b.type === 'data_table'))!;
    expect(message.channel).toBe('C_MARKETING');
    expect(message.ephemeral).toBe(true);
    const rows = tableRows(message);
    expect(rows[0]).toEqual(expect.arrayContaining(['Name', 'Visits']));
    expect(rows.length).toBeGreaterThan(5);
    expect(contextOf(message)).toMatch(/^Rows 1–10/);
    report = message;
  });

  it('GET /ui/state returns it for its user, and not for anyone else', async () => {
    const { status, json } = await get('/ui/state?channel=C_MARKETING&user=U_ALICE');
    expect(status).toBe(200);
    const messages = json.messages as UiMessage[];
    const found = messages.find((m) => m.ts === report.ts);
    expect(found).toBeDefined();
    expect(tableRows(found!)).toEqual(tableRows(report));
    expect(json.views).toEqual([]);

    const bob = await get('/ui/state?channel=marketing&user=bob');
    expect(bob.status).toBe(200);
    expect((bob.json.messages as UiMessage[]).some((m) => m.ts === report.ts)).toBe(false);
  });

  it('POST /ui/action pressing Next ▶ updates the message in place', async () => {
    const events = await collectEvents(
      'U_ALICE',
      (list) => list.some((e) => e.event === 'update' && (e.data.message as UiMessage).ts === report.ts),
      async () => {
        const { status, json } = await post('/ui/action', {
          user: 'U_ALICE',
          channel: 'C_MARKETING',
          ts: report.ts,
          action_id: 'report.next',
        });
        expect(status).toBe(200);
        expect(json).toMatchObject({ ok: true, delivery: { kind: 'block_actions', status: 200 } });
      },
    );
    const updated = events.find((e) => e.event === 'update')!.data.message as UiMessage;
    expect(updated.updates).toBeGreaterThan(report.updates);
    expect(contextOf(updated)).toMatch(/^Rows 11–/);
    expect(tableRows(updated)[1]).not.toEqual(tableRows(report)[1]);
  });

  it('a modal opens, refuses a filter without values with an error under the field, and applies one', async () => {
    const events = await collectEvents(
      'U_ALICE',
      (list) => list.some((e) => e.event === 'views' && (e.data.stack as Json[]).length === 1),
      async () => {
        const { status } = await post('/ui/action', {
          user: 'U_ALICE',
          channel: 'C_MARKETING',
          ts: report.ts,
          action_id: 'report.filter',
        });
        expect(status).toBe(200);
      },
    );
    const view = (events.find((e) => e.event === 'views')!.data.stack as Json[])[0]!;
    expect(view.title).toMatchObject({ text: 'Filter Sources' });

    const refused = await post('/ui/submit', { user: 'U_ALICE', view_id: view.id, values: { target: 'country.name' } });
    expect(refused.status).toBe(200);
    expect(refused.json.delivery).toMatchObject({ response_action: 'errors' });
    const state = await get('/ui/state?channel=C_MARKETING&user=U_ALICE');
    const open = (state.json.views as Json[])[0]!;
    expect(open.errors).toMatchObject({ f_values: expect.stringMatching(/value/i) });

    const applied = await post('/ui/submit', {
      user: 'U_ALICE',
      view_id: view.id,
      values: { target: 'country.name', values: 'Germany' },
    });
    expect(applied.status).toBe(200);
    const narrowed = await box.slack.waitFor(() => {
      const m = box.slack.workspace.message('C_MARKETING', report.ts);
      return m && JSON.stringify(m.blocks).includes('country is `Germany`') ? m : undefined;
    });
    expect(narrowed).toBeDefined();
    expect(box.slack.openViews('U_ALICE')).toHaveLength(0);
  });

  it('POST /ui/close-view closes a modal', async () => {
    await post('/ui/action', { user: 'U_ALICE', channel: 'C_MARKETING', ts: report.ts, action_id: 'report.filter' });
    const view = await box.slack.waitFor(() => box.slack.openViews('U_ALICE').at(-1));
    const { status, json } = await post('/ui/close-view', { user: 'U_ALICE', view_id: view.id });
    expect(status).toBe(200);
    expect(json.ok).toBe(true);
    expect(box.slack.openViews('U_ALICE')).toHaveLength(0);
  });

  it('a plain message is posted as the user, and a thread reply goes to its thread', async () => {
    const first = await post('/ui/command', { channel: 'general', user: 'bob', text: 'hello <@U_ALICE> & co' });
    expect(first.status).toBe(200);
    const parent = first.json.message as UiMessage & { user: string };
    expect(parent.user).toBe('U_BOB');
    expect(parent.text).toBe('hello <@U_ALICE> & co');
    const reply = await post('/ui/command', {
      channel: 'C_GENERAL',
      user: 'U_ALICE',
      text: 'hi!',
      thread_ts: parent.ts,
    });
    expect(reply.status).toBe(200);
    const thread = await get(`/ui/thread?channel=C_GENERAL&ts=${parent.ts}&user=U_ALICE`);
    expect((thread.json.messages as UiMessage[]).map((m) => m.text)).toEqual(['hello <@U_ALICE> & co', 'hi!']);
    const state = await get('/ui/state?channel=C_GENERAL&user=U_ALICE');
    expect((state.json.messages as Json[]).find((m) => m.ts === parent.ts)).toMatchObject({ reply_count: 1 });
  });

  it("the event stream carries nobody else's ephemerals", async () => {
    const events = await collectEvents(
      'U_BOB',
      (list) => list.some((e) => e.event === 'message' && (e.data.message as UiMessage).text === 'marker'),
      async () => {
        await post('/ui/command', { channel: 'C_SECURITY', user: 'U_ALICE', text: '/traffic help' });
        await box.slack.waitForMessage('C_SECURITY', (m) => m.ephemeralTo === 'U_ALICE' && m.user !== 'U_ALICE');
        await post('/ui/command', { channel: 'C_SECURITY', user: 'U_ALICE', text: 'marker' });
      },
    );
    expect(events.filter((e) => e.event === 'message').map((e) => (e.data.message as UiMessage).text)).toEqual([
      'marker',
    ]);
  });
});

describe('bad requests get 400 JSON', () => {
  it.each([
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_ALICE' }, 'invalid_arguments'],
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_ALICE', text: '   ' }, 'invalid_arguments'],
    ['/ui/command', { channel: 'C_NOPE', user: 'U_ALICE', text: '/traffic help' }, 'channel_not_found'],
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_NOBODY', text: '/traffic help' }, 'unknown_user'],
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_LOOKOUT_BOT', text: 'hi' }, 'unknown_user'],
    ['/ui/command', { channel: 'C_ARCHIVED', user: 'U_ALICE', text: 'hi' }, 'is_archived'],
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_ALICE', text: '/deploy prod' }, 'unknown_command'],
    ['/ui/command', { channel: 'C_MARKETING', user: 'U_ALICE', text: 'hi', thread_ts: '1.000001' }, 'thread_not_found'],
    ['/ui/action', { user: 'U_ALICE', action_id: 'report.next' }, 'invalid_arguments'],
    [
      '/ui/action',
      { user: 'U_ALICE', channel: 'C_MARKETING', ts: '1.000001', action_id: 'report.next' },
      'message_not_found',
    ],
    ['/ui/action', { user: 'U_ALICE', view_id: 'VNOPE', action_id: 'x' }, 'view_not_found'],
    ['/ui/submit', { user: 'U_ALICE', view_id: 'VNOPE', values: {} }, 'view_not_found'],
    ['/ui/submit', { user: 'U_ALICE', values: {} }, 'invalid_arguments'],
    ['/ui/close-view', { user: 'U_ALICE', view_id: 'VNOPE' }, 'view_not_found'],
  ])('POST %s %j → %s', async (path, body, error) => {
    const { status, json } = await post(path, body);
    expect(status).toBe(400);
    expect(json).toMatchObject({ ok: false, error });
  });

  it('not JSON, or not sent as JSON', async () => {
    expect(await post('/ui/command', '{nope', 'application/json')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'invalid_json' },
    });
    expect(await post('/ui/command', 'channel=C_MARKETING', 'application/x-www-form-urlencoded')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'invalid_content_type' },
    });
  });

  it('a click carries the touched element: Pause and Preview under the third of three digests act on the third', async () => {
    const ids: number[] = [];
    for (const report of ['sources', 'pages', 'countries']) {
      ids.push(
        (
          await box.lookout.store.digests.create({
            teamId: 'T_LOOKOUT',
            channelId: 'C_GENERAL',
            ownerId: 'U_ALICE',
            reports: [report],
            topN: 3,
            period: 'week',
            schedule: { kind: 'daily', time: '09:00' },
            cron: '0 9 * * *',
            timeZone: 'UTC',
          })
        ).id,
      );
    }
    await post('/ui/command', { channel: 'C_GENERAL', user: 'U_ALICE', text: '/traffic digest list' });
    const list = await box.slack.waitFor(() =>
      box.slack
        .messages('C_GENERAL', { user: 'U_ALICE' })
        .find((m) => JSON.stringify(m.blocks ?? []).includes('digest.pause')),
    );
    /** The block holding the Pause button whose value is digest `id`: as the page renders it, each button under its own block. */
    const blockOf = (id: number) =>
      (list.blocks as { block_id: string; elements?: { action_id?: string; value?: string }[] }[]).find((b) =>
        b.elements?.some((e) => e.action_id === 'digest.pause' && e.value === String(id)),
      )!.block_id;
    const third = ids[2]!;

    const ambiguous = await post('/ui/action', {
      user: 'U_ALICE',
      channel: 'C_GENERAL',
      ts: list.ts,
      action_id: 'digest.pause',
    });
    expect(ambiguous).toMatchObject({ status: 400, json: { detail: expect.stringMatching(/in 3 blocks/) } });
    const paused = await post('/ui/action', {
      user: 'U_ALICE',
      channel: 'C_GENERAL',
      ts: list.ts,
      block_id: blockOf(third),
      action_id: 'digest.pause',
    });
    expect(paused.status).toBe(200);
    const all = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(all.filter((d) => ids.includes(d.id)).map((d) => [d.id, d.paused])).toEqual([
      [ids[0], false],
      [ids[1], false],
      [third, true],
    ]);

    const fresh = await box.slack.waitFor(() =>
      box.slack
        .messages('C_GENERAL', { user: 'U_ALICE' })
        .filter((m) => JSON.stringify(m.blocks ?? []).includes('digest.preview'))
        .at(-1),
    );
    const previewBlock = (
      fresh.blocks as { block_id: string; elements?: { action_id?: string; value?: string }[] }[]
    ).find((b) => b.elements?.some((e) => e.action_id === 'digest.preview' && e.value === String(third)))!.block_id;
    const before = box.slack.messages('C_GENERAL', { user: 'U_ALICE' }).length;
    await post('/ui/action', {
      user: 'U_ALICE',
      channel: 'C_GENERAL',
      ts: fresh.ts,
      block_id: previewBlock,
      action_id: 'digest.preview',
    });
    const preview = await box.slack.waitFor(() =>
      box.slack
        .messages('C_GENERAL', { user: 'U_ALICE' })
        .slice(before)
        .find((m) => JSON.stringify(m.blocks ?? []).includes(`#${third}`)),
    );
    expect(JSON.stringify(preview.blocks)).toContain('Countries');
    for (const id of ids) await box.lookout.store.digests.remove('T_LOOKOUT', id);
  });

  it("an element the message does not have, and someone else's ephemeral", async () => {
    const own = box.slack.messages('C_MARKETING', { user: 'U_ALICE' }).find((m) => m.ephemeralTo === 'U_ALICE')!;
    const missing = await post('/ui/action', {
      user: 'U_ALICE',
      channel: 'C_MARKETING',
      ts: own.ts,
      action_id: 'no.such.button',
    });
    expect(missing).toMatchObject({
      status: 400,
      json: { ok: false, error: 'refused', detail: expect.stringMatching(/no element/) },
    });
    const other = await post('/ui/action', {
      user: 'U_BOB',
      channel: 'C_MARKETING',
      ts: own.ts,
      action_id: 'report.next',
    });
    expect(other).toMatchObject({ status: 400, json: { ok: false, error: 'message_not_found' } });
  });

  it('GET endpoints check their parameters', async () => {
    expect(await get('/ui/state?user=U_ALICE')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'invalid_arguments' },
    });
    expect(await get('/ui/state?channel=C_MARKETING&user=nobody')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'unknown_user' },
    });
    expect(await get('/ui/thread?channel=C_MARKETING&ts=1.1&user=U_ALICE')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'thread_not_found' },
    });
    expect(await get('/ui/events?user=nobody')).toMatchObject({
      status: 400,
      json: { ok: false, error: 'unknown_user' },
    });
  });
});
