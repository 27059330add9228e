import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_TABLES } from '../../../src/features/workspace/index.js';
import { ANSWER_WITHIN_MS } from '../../../src/features/workspace/listeners.js';
import { CANCELLED } from '../../../src/features/workspace/service.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { connect, distributedSandbox, install, openHome, run, type DistributedBox } from '../../support/distributed.js';
import { until } from '../../support/until.js';

let box: DistributedBox;
const other = () => box.slack.team('T_OTHER');
const one = () => box.slack.team('T_LOOKOUT');

beforeAll(async () => {
  box = await distributedSandbox();
});
afterAll(() => box?.stop());

describe('a distributed Lookout', () => {
  it('serves an install page with Add to Slack and the privacy and support links', async () => {
    const html = await (await fetch(`${box.lookout.base}/slack/install`)).text();
    expect(html).toContain('id="add-to-slack"');
    expect(html).toContain('https://lookout.example/privacy');
    expect(html).toContain('https://lookout.example/support');
  });

  it('is installed in both workspaces through the OAuth flow, tokens sealed', async () => {
    expect(await install(box, 'T_OTHER', 'U_DANA')).toMatchObject({
      status: 200,
      html: expect.stringContaining('installed in Other Co'),
    });
    expect((await install(box, 'T_LOOKOUT', 'U_ALICE')).html).toContain('installed in');
    const { rows } = await box.lookout.store.db.query<{ id: string; bot_token: string }>(
      'SELECT id, bot_token FROM installations ORDER BY id',
    );
    expect(rows.map((r) => r.id)).toEqual(['team:T_LOOKOUT', 'team:T_OTHER']);
    for (const r of rows) expect(r.bot_token).toMatch(/^v1:/);
  });

  it('ends the install with a way back to the workspace it installed into, its Lookout open there', async () => {
    const { html } = await install(box, 'T_OTHER', 'U_DANA');
    const href = /id="back-to-slack" href="([^"]+)">Open Lookout in Other Co</.exec(html)?.[1]?.replace(/&amp;/g, '&');
    expect(href).toBe(`${box.slack.url}/app_redirect?app=A_LOOKOUT&team=T_OTHER`);
    const landed = await fetch(href!, { redirect: 'manual' });
    expect(landed.status).toBe(302);
    expect(landed.headers.get('location')).toBe('/?team=T_OTHER&app=A_LOOKOUT');
  });

  it('says how to connect, and who may, until the workspace connects its analytics', async () => {
    const said = await run(other(), 'C_OTHER_GENERAL', 'U_DANA', 'pages last7d');
    expect(said).toContain('not connected to an analytics account');
    expect(said).toContain('Connect your analytics');
  });

  it('handles each workspace’s events apart: an event id seen in one workspace is not a retry in another', async () => {
    // The offline Slack numbers each workspace's events from 1, as nothing in Slack's docs rules out.
    const before = one().workspace.home('U_ALICE')?.publishes ?? 0;
    await openHome(other(), 'U_DANA');
    await openHome(one(), 'U_ALICE');
    expect(one().workspace.home('U_ALICE')!.publishes).toBeGreaterThan(before);
  });

  it('refuses a wrong key beside the field, saves nothing, and never shows the key', async () => {
    const baseUrl = (await wiringAccount('T_OTHER')).baseUrl;
    const { outcome } = await connect(other(), 'U_DANA', baseUrl, 'not-the-right-key-123');
    expect(outcome).toContain('refused this key');
    const { rows } = await box.lookout.store.db.query('SELECT * FROM workspaces');
    expect(rows).toEqual([]);
  });

  it('on an API slower than Slack waits for a form: says it is checking, then shows the refusal beside the field, the key not echoed', async () => {
    const baseUrl = (await wiringAccount('T_OTHER')).baseUrl;
    box.demo!.setFaults({ latencyMs: ANSWER_WITHIN_MS + 500 });
    try {
      const { answer, outcome, shown } = await connect(other(), 'U_DANA', baseUrl, 'slow-and-wrong-key-123');
      expect(answer.json).toMatchObject({
        response_action: 'update',
        view: { callback_id: 'workspace.connect.checking' },
      });
      expect(JSON.stringify((answer.json as { view: unknown }).view)).toContain('Trying the key');
      expect(shown?.callback_id).toBe('workspace.connect');
      expect(outcome).toContain('refused this key');
      expect(JSON.stringify(shown)).not.toContain('slow-and-wrong-key-123');
    } finally {
      box.demo!.setFaults({});
    }
    const { rows } = await box.lookout.store.db.query('SELECT * FROM workspaces');
    expect(rows).toEqual([]);
  });

  it('on a slow API connects once the key answers, and the form says so', async () => {
    const others = await wiringAccount('T_OTHER');
    box.demo!.setFaults({ latencyMs: ANSWER_WITHIN_MS + 500 });
    try {
      const { answer, outcome, shown } = await connect(other(), 'U_DANA', others.baseUrl, others.apiKey);
      expect(answer.json).toMatchObject({ response_action: 'update' });
      expect(outcome).toBe('connected');
      expect(JSON.stringify(shown?.blocks)).toContain('Connected to');
    } finally {
      box.demo!.setFaults({});
    }
    await expect(box.lookout.tenants.of('T_OTHER')).resolves.toBeDefined();
  });

  it('answers each workspace from its own account once connected; the Home shows only the last four characters', async () => {
    const others = await wiringAccount('T_OTHER');
    const ones = await wiringAccount('T_LOOKOUT');
    expect((await connect(other(), 'U_DANA', others.baseUrl, others.apiKey)).outcome).toBe('connected');
    expect((await connect(one(), 'U_ALICE', ones.baseUrl, ones.apiKey)).outcome).toBe('connected');
    const home = await openHome(other(), 'U_DANA');
    const shown = JSON.stringify(home.view);
    expect(shown).toContain(`…${others.apiKey.slice(-4)}`);
    expect(shown).not.toContain(others.apiKey);
    // The workspace's admin reads the settings in force in its own words: never the operator's variables.
    expect(shown).toContain('Settings (read-only)');
    expect(shown).toContain('everyone may manage digests, watches and threat alerts');
    expect(shown).not.toMatch(/ADMIN_USERS|SECURITY_|DIGESTS_PER|USER_RATE|environment/);
    const theirs = await run(other(), 'C_OTHER_GENERAL', 'U_DANA', 'pages last7d');
    const ours = await run(one(), 'C_MARKETING', 'U_ALICE', 'pages last7d');
    expect(theirs).toContain('/plans');
    expect(ours).not.toContain('/plans');
    expect(theirs).not.toContain(ours.split('\n').find((l) => l.includes('/product')) ?? '\u0000');
  });

  it('stops a workspace that removes it, cancels what it had waiting, and purges it after the retention: nothing of it stays in any table', async () => {
    const ws = box.lookout.store.db;
    // A post still waiting when the workspace removes Lookout (not due for an hour).
    const { rows: queued } = await ws.query<{ id: string }>(
      `INSERT INTO deliveries (kind, channel_id, message, team_id, next_at, deadline, created_at)
       VALUES ('notice', 'C_OTHER_GENERAL', '{"text":"waiting","blocks":[]}', 'T_OTHER', now() + interval '1 hour', now() + interval '2 hours', now())
       RETURNING id`,
    );
    expect(queued).toHaveLength(1);
    const connectedAccount = (await box.lookout.tenants.of('T_OTHER')).account;
    await box.slack.uninstall('T_OTHER');
    await until(async () => {
      const { rows } = await ws.query<{ uninstalled_at: Date | null }>(
        "SELECT uninstalled_at FROM installations WHERE id = 'team:T_OTHER'",
      );
      return rows[0]?.uninstalled_at ? true : undefined;
    }, 'the uninstall to be recorded');
    const { rows: waiting } = await ws.query<{ status: string; error: string }>(
      'SELECT status, error FROM deliveries WHERE id = $1',
      [queued[0]!.id],
    );
    expect(waiting).toEqual([{ status: 'failed', error: CANCELLED }]);
    await expect(box.lookout.tenants.of('T_OTHER')).rejects.toMatchObject({ code: 'not_installed' });
    // Installed again within the retention, it has its connection back, and everything else it kept.
    expect((await install(box, 'T_OTHER', 'U_DANA')).status).toBe(200);
    expect((await box.lookout.tenants.of('T_OTHER')).account).toBe(connectedAccount);
    expect(await run(other(), 'C_OTHER_GENERAL', 'U_DANA', 'pages last7d')).toContain('/plans');
    await box.slack.uninstall('T_OTHER');
    await until(async () => {
      const { rows } = await ws.query<{ uninstalled_at: Date | null }>(
        "SELECT uninstalled_at FROM installations WHERE id = 'team:T_OTHER'",
      );
      return rows[0]?.uninstalled_at ? true : undefined;
    }, 'the second uninstall to be recorded');
    // After the retention, everything of it goes; T_LOOKOUT keeps its own.
    const workspace = box.lookout.features.workspace.service;
    await workspace.purgeLeft(new Date(Date.now() + 60_000));
    const { rows: tables } = await ws.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    for (const { table_name } of tables) {
      const { rows: cols } = await ws.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        [table_name],
      );
      if (!cols.some((c) => c.column_name === 'team_id')) {
        expect(SHARED_TABLES, `${table_name} keeps rows without naming their workspace`).toContain(table_name);
        continue;
      }
      const { rows } = await ws.query(`SELECT 1 FROM ${table_name} WHERE team_id = 'T_OTHER'`);
      expect(rows, `${table_name} still holds T_OTHER's rows`).toEqual([]);
    }
    const { rows: kept } = await ws.query("SELECT 1 FROM workspaces WHERE team_id = 'T_LOOKOUT'");
    expect(kept).toHaveLength(1);
  });
});

async function wiringAccount(team: string) {
  const account = box.lookout.accounts.find((a) => a.teamId === team);
  if (!account) throw new Error(`no demo account for ${team}`);
  return account;
}

describe('a distributed Lookout under token rotation', () => {
  let rotating: DistributedBox;
  /** How far the offline Slack's clock is ahead of the real one. */
  let ahead = 0;
  beforeAll(async () => {
    rotating = await distributedSandbox(
      {},
      {
        slack: {
          oauth: { clientId: '1234.5678', clientSecret: 'rotating-secret', redirectUris: [], tokenRotation: true },
          now: () => Date.now() + ahead,
        },
      },
    );
  });
  afterAll(() => rotating?.stop());

  it('refreshes a token that expired while a post was waiting, and posts it: nothing lost', async () => {
    expect((await install(rotating, 'T_OTHER', 'U_DANA')).status).toBe(200);
    const db = rotating.lookout.store.db;
    const tokens = async () =>
      (
        await db.query<{ bot_token: string; bot_refresh_token: string; bot_token_expires_at: Date }>(
          "SELECT bot_token, bot_refresh_token, bot_token_expires_at FROM installations WHERE id = 'team:T_OTHER'",
        )
      ).rows[0]!;
    const first = await tokens();
    expect(first.bot_refresh_token).toMatch(/^v1:/);
    expect(first.bot_token_expires_at.getTime()).toBeGreaterThan(Date.now() + 11 * 3_600_000);
    // Thirteen hours on at Slack: the token Lookout holds has expired there; Lookout's record says it is within
    // the two hours before expiry that Bolt's authorize refreshes at.
    ahead = 13 * 3_600_000;
    await db.query(
      "UPDATE installations SET bot_token_expires_at = now() + interval '1 hour' WHERE id = 'team:T_OTHER'",
    );
    rotating.lookout.tenants.forget('T_OTHER');
    const id = await rotating.lookout.store.deliveries.enqueue({
      team: 'T_OTHER',
      subject: NOTICE,
      channelId: 'C_OTHER_GENERAL',
      message: { text: 'posted after a refresh', blocks: [] },
      expiresInMs: 3_600_000,
    });
    rotating.lookout.deliveries.wake();
    const done = await until(async () => {
      const d = await rotating.lookout.store.deliveries.get(id);
      return d && d.status !== 'pending' && d.status !== 'sending' ? d : undefined;
    }, 'the delivery to finish');
    expect(done).toMatchObject({ status: 'posted', attempts: 1 });
    expect(
      rotating.slack
        .team('T_OTHER')
        .messages('C_OTHER_GENERAL')
        .map((m) => m.text),
    ).toContain('posted after a refresh');
    const second = await tokens();
    expect(second.bot_token).not.toBe(first.bot_token);
    expect(second.bot_refresh_token).not.toBe(first.bot_refresh_token);
    expect(second.bot_token_expires_at.getTime()).toBeGreaterThan(Date.now() + 11 * 3_600_000);
  });
});
