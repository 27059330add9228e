import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, View } from '@lookout/sandbox/slack';
import { mrkdwnOf, pickSchedule, sandbox, type Sandbox } from '../../support/sandbox.js';
import { stillAnswers } from '../../support/answers.js';

/**
 * What one ordinary user of the workspace can send behind a valid signature: values the
 * client would never offer, read back by Lookout from buttons, menus, modals and their
 * private_metadata. Each is answered clearly or refused beside the field; the store's
 * state is unchanged, no request reaches the analytics API or any unexpected URL, and
 * the app goes on answering.
 */
type Box = Sandbox & { logs: string[] };

const STATE_TABLES = [
  'digests',
  'digest_runs',
  'alert_subscriptions',
  'alert_mutes',
  'alerts',
  'deliveries',
  'scan_state',
];

async function snapshot(box: Box): Promise<string> {
  const parts = await Promise.all(STATE_TABLES.map((t) => box.lookout.store.db.query(`SELECT * FROM ${t} ORDER BY 1`)));
  return JSON.stringify(parts.map((p) => p.rows));
}

/** Everything in a message Slack would interpret, top-level text included. */
const interpreted = (m: { text?: string; blocks?: readonly unknown[] }) => [m.text ?? '', ...mrkdwnOf(m)].join('\n');

async function answerTo(box: Box, channel: string, user: string, send: () => Promise<unknown>): Promise<Message> {
  const before = new Set(box.slack.messages(channel, { user }).map((m) => `${m.ts}:${JSON.stringify(m.blocks)}`));
  await send();
  return box.slack.waitFor(
    () =>
      box.slack
        .messages(channel, { user })
        .find((m) => m.user !== user && !before.has(`${m.ts}:${JSON.stringify(m.blocks)}`)),
    10_000,
  );
}

describe('forged values behind a valid signature', () => {
  let box: Box;
  let evil: Server;
  const evilHits: string[] = [];
  let evilUrl = '';

  beforeAll(async () => {
    box = await sandbox({ scheduler: false });
    evil = createServer((req, res) => {
      evilHits.push(`${req.method} ${req.url}`);
      req.resume();
      res.end('{}');
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/collect`;
  });
  afterAll(async () => {
    await box?.stop();
    await new Promise((r) => evil?.close(r));
  });

  async function digestForm(): Promise<View> {
    await box.slack.slash('C_MARKETING', 'U_ALICE', 'digest add');
    return box.slack.waitFor(() => box.slack.openViews('U_ALICE').at(-1));
  }

  it('the digest form: top 100000, −5 and abc, 60 copies of one report, a channel with a mention, frequency hourly, weekday x', async () => {
    const view = await digestForm();
    const state = (block: string, value: Record<string, unknown>) => ({ [block]: { [block]: value } });
    const forgeries: [string, Record<string, Record<string, Record<string, unknown>>>][] = [
      ['top', state('top', { type: 'static_select', selected_option: { value: '100000' } })],
      ['top', state('top', { type: 'static_select', selected_option: { value: '-5' } })],
      ['top', state('top', { type: 'static_select', selected_option: { value: 'abc' } })],
      [
        'reports',
        state('reports', {
          type: 'multi_static_select',
          selected_options: Array.from({ length: 60 }, () => ({ value: 'sources' })),
        }),
      ],
      ['reports', state('reports', { type: 'multi_static_select', selected_options: [{ value: 'password' }] })],
      ['channel', state('channel', { type: 'channels_select', selected_channel: 'C1> <!channel' })],
      ['frequency', state('frequency', { type: 'static_select', selected_option: { value: 'hourly' } })],
      [
        'weekday',
        {
          ...state('frequency', { type: 'static_select', selected_option: { value: 'weekly' } }),
          ...state('weekday', { type: 'static_select', selected_option: { value: 'x' } }),
        },
      ],
    ];
    const before = await snapshot(box);
    const apiBefore = box.demo!.requests.length;
    for (const [field, forged] of forgeries) {
      const live = box.slack.openViews('U_ALICE').at(-1)!;
      expect(live.id).toBe(view.id);
      live.state.values = forged;
      const answer = await box.slack.submit(live);
      expect(answer.status, field).toBe(200);
      expect(answer.json, field).toMatchObject({ response_action: 'errors', errors: { [field]: expect.any(String) } });
      expect(JSON.stringify(answer.json)).not.toMatch(/<!channel>|TypeError|stack/);
    }
    expect(await snapshot(box)).toBe(before);
    expect(box.demo!.requests.length).toBe(apiBefore);
    await stillAnswers(box);
  });

  it('a sort-menu value that is not one of the report’s sorts, and a range that is not a range: the same answer a bad command gets', async () => {
    /** A fresh report whose menu `actionId` offers one more, forged, option; the answer to picking it. */
    const pickForged = async (actionId: string, value: string) => {
      const report = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
        box.slack.slash('C_MARKETING', 'U_ALICE', 'sources last7d'),
      );
      const elements = (report.blocks as { elements?: { action_id?: string; options?: unknown[] }[] }[]).flatMap(
        (b) => b.elements ?? [],
      );
      elements
        .find((e) => e.action_id === actionId)!
        .options!.push({ text: { type: 'plain_text', text: 'forged' }, value });
      const before = await snapshot(box);
      const apiBefore = box.demo!.requests.length;
      const answer = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
        box.slack.select({ channel: 'C_MARKETING', ts: report.ts }, actionId, value),
      );
      expect(box.demo!.requests.length).toBe(apiBefore);
      expect(await snapshot(box)).toBe(before);
      return interpreted(answer);
    };
    const sorted = await pickForged('report.sort', 's:password; DROP TABLE x:asc');
    expect(sorted).toContain('is not a way to sort Sources; pick one from the menu.');
    expect(sorted).toContain('Usage:');
    expect(await pickForged('report.range', 'r:forever')).toMatch(/Unknown range .forever./);
    await stillAnswers(box);
  });

  it('a filter modal whose private_metadata names another URL: refused beside the field, nothing is sent there or to the API', async () => {
    const report = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
      box.slack.slash('C_MARKETING', 'U_ALICE', 'countries last7d'),
    );
    await box.slack.click({ channel: 'C_MARKETING', ts: report.ts }, 'report.filter');
    const view = await box.slack.waitFor(() =>
      box.slack.openViews('U_ALICE').find((v) => v.callback_id === 'filter.modal'),
    );
    const metadata = JSON.parse(view.private_metadata) as Record<string, unknown>;
    const apiBefore = box.demo!.requests.length;

    for (const forged of [
      { ...metadata, u: evilUrl },
      { ...metadata, u: evilUrl, t: undefined },
      { q: metadata.q, u: evilUrl, e: true },
    ]) {
      view.private_metadata = JSON.stringify(forged);
      const answer = await box.slack.submit(view, {
        target: 'country.name',
        operator: 'is_any_of',
        values: 'Germany',
        group: 'all',
      });
      expect(answer.json).toMatchObject({
        response_action: 'errors',
        errors: { f_target: expect.stringMatching(/too old/) },
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(evilHits).toEqual([]);
    expect(box.demo!.requests.length).toBe(apiBefore);

    view.private_metadata = JSON.stringify(metadata);
    const honest = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
      box.slack.submit(view, { target: 'country.name', operator: 'is_any_of', values: 'Germany', group: 'all' }),
    );
    expect(interpreted(honest)).toContain('Germany');
    await stillAnswers(box);
  });

  it('`/visitor <!channel>` and `/traffic <!here>`: the input is shown, never acted on, in the blocks and the top-level text', async () => {
    const apiBefore = box.demo!.requests.length;
    const visitor = await answerTo(box, 'C_SECURITY', 'U_ALICE', () =>
      box.slack.slash('C_SECURITY', 'U_ALICE', '<!channel>', '/visitor'),
    );
    const traffic = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
      box.slack.slash('C_MARKETING', 'U_ALICE', '<!here> <https://evil.example|click>'),
    );
    for (const m of [visitor, traffic]) {
      expect(interpreted(m)).not.toMatch(/<!|<https?:/);
      expect(interpreted(m)).toMatch(/&lt;!(channel|here)&gt;/);
    }
    expect(box.demo!.requests.length).toBe(apiBefore);
  });
});

describe('text from the API reaches Slack through one escaping path', () => {
  let box: Box;
  let api: Server;
  const HOSTILE = '<!channel> <https://evil.example|click here> \u202Egnp.exe\u202C a\u200Bdmin';

  beforeAll(async () => {
    api = createServer((req, res) => {
      req.resume();
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: HOSTILE, message: HOSTILE }));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    box = await sandbox({
      scheduler: false,
      api: { baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, apiKey: 'test-api-key-1234' },
    });
  });
  afterAll(async () => {
    await box?.stop();
    await new Promise((r) => api?.close(r));
  });

  it('an API error body with a mention, a link and bidi and zero-width characters is shown inert, top-level text included', async () => {
    const answer = await answerTo(box, 'C_MARKETING', 'U_ALICE', () =>
      box.slack.slash('C_MARKETING', 'U_ALICE', 'sources'),
    );
    const text = interpreted(answer);
    expect(text).toContain('refused the request');
    expect(text).toContain('&lt;!channel&gt; &lt;https://evil.example|click here&gt;');
    expect(text).not.toMatch(/<!|<https?:|[\u202A-\u202E\u2066-\u2069\u200B]/);
    expect(text).toContain('gnp.exe admin');
    await stillAnswers(box);
  });
});

describe('limits on abuse', () => {
  let box: Box;

  beforeAll(async () => {
    box = await sandbox({
      scheduler: false,
      admins: ['U_BOB'],
      limits: {
        digestMinIntervalMs: 3_600_000,
        digestsPerChannel: 2,
        digestsPerUser: 3,
        userRequests: 3,
        userWindowMs: 60_000,
      },
    });
  });
  afterAll(() => box?.stop());

  const digestCount = async () => (await box.lookout.store.digests.listAll('T_LOOKOUT')).length;

  it('an every-minute cron digest is refused with the minimum interval, typed or in the form', async () => {
    const typed = await answerTo(box, 'C_GENERAL', 'U_CAROL', () =>
      box.slack.slash('C_GENERAL', 'U_CAROL', 'digest add cron "* * * * *" UTC sources'),
    );
    expect(interpreted(typed)).toContain('That schedule runs every 1 minute; a digest may run at most every 1 hour.');
    await box.slack.slash('C_GENERAL', 'U_CAROL', 'digest add');
    const view = await pickSchedule(box, await box.slack.waitFor(() => box.slack.openViews('U_CAROL').at(-1)), 'cron');
    const answer = await box.slack.submit(view, {
      channel: 'C_GENERAL',
      reports: ['sources'],
      cron: '*/30 * * * *',
      timezone: 'UTC',
      top: '5',
    });
    expect(answer.json).toMatchObject({
      response_action: 'errors',
      errors: { cron: expect.stringContaining('runs every 30 minutes') },
    });
    expect(await digestCount()).toBe(0);
  });

  it('a channel holds at most 2 digests and a person at most 3; each refusal says why and what to do', async () => {
    const add = (channel: string) =>
      answerTo(box, channel, 'U_CAROL', () =>
        box.slack.slash(channel, 'U_CAROL', 'digest add daily 09:00 UTC sources'),
      );
    await add('C_GENERAL');
    await add('C_GENERAL');
    const third = await add('C_GENERAL');
    expect(interpreted(third)).toContain('That channel already has 2 digests, the most a channel may have.');
    await add('C_MARKETING');
    const fourth = await add('C_SECURITY');
    expect(interpreted(fourth)).toContain('You already have 3 digests, the most one person may have.');
    expect(await digestCount()).toBe(3);
  });

  it('each person may ask for data 3 times a minute; the 4th is told when to try again and reaches no API; others are unaffected', async () => {
    const ask = (user: string) =>
      answerTo(box, 'C_MARKETING', user, () => box.slack.slash('C_MARKETING', user, 'sources last7d'));
    for (let i = 0; i < 3; i++) expect(interpreted(await ask('U_ALICE'))).not.toContain('Try again in');
    const apiBefore = box.demo!.requests.length;
    const refused = await ask('U_ALICE');
    expect(interpreted(refused)).toMatch(
      /You have used the 3 analytics API requests one person may make in this workspace within 1 minute .* Try again in \d+ (seconds?|minute)\./,
    );
    expect(box.demo!.requests.length).toBe(apiBefore);
    expect(interpreted(await ask('U_BOB'))).not.toContain('Try again in');
    const help = await answerTo(box, 'C_MARKETING', 'U_ALICE', () => box.slack.slash('C_MARKETING', 'U_ALICE', 'help'));
    expect(interpreted(help)).not.toContain('Try again in');
  });
});
