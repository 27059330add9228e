import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../../src/compose.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack, computeSignature } from '@lookout/sandbox/slack';
import { openDb, type Db } from '../../../src/platform/store/db.js';
import { textsOf } from '../../support/sandbox.js';
import { captureLogs } from '../../support/log-capture.js';
import { until } from '../../support/until.js';
import { TEST_DATABASE_URL } from '../../support/db.js';

if (!TEST_DATABASE_URL) console.warn('digest replicas on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

describe.skipIf(!TEST_DATABASE_URL)('three replicas on one PostgreSQL', () => {
  const schema = `t_replicas_${randomBytes(4).toString('hex')}`;
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  const replicas: Lookout[] = [];
  let demo: DemoApi;
  let slack: OfflineSlack;
  let admin: Db;

  beforeAll(async () => {
    demo = await startDemoApi({ apiKey: 'k' });
    slack = await startOfflineSlack({ signingSecret, botToken });
    for (let i = 0; i < 3; i++) {
      replicas.push(
        await startLookout({
          api: { baseUrl: demo.url, apiKey: 'k' },
          slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
          store: { databaseUrl: TEST_DATABASE_URL, schema },
          log: captureLogs('warn').logger,
          demo: true,
          port: 0,
          replica: `replica-${i}`,
          settings: { DIGEST_RELOAD: 500, USER_RATE_LIMIT: 4 },
        }),
      );
    }
    admin = await openDb({ databaseUrl: TEST_DATABASE_URL, schema });
  }, 60_000);

  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.close();
    await slack?.close();
    await demo?.close();
  });

  it('a digest that comes due is posted exactly once', async () => {
    // Due a few seconds from now (a six-field expression: cron-parser and the store take it as is).
    const due = new Date(Math.ceil((Date.now() + 8000) / 1000) * 1000);
    const cron = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} ${due.getUTCDate()} ${due.getUTCMonth() + 1} *`;
    const digest = await replicas[0]!.store.digests.create({
      teamId: 'T_LOOKOUT',
      channelId: 'C_GENERAL',
      ownerId: 'U_ALICE',
      reports: ['sources'],
      topN: 3,
      period: 'day',
      schedule: { kind: 'cron', cron },
      cron,
      timeZone: 'UTC',
    });
    // A replica's timer schedules it within its reload interval (500 ms here): its next slot is in the store, for all.
    await until(
      async () => (await replicas[0]!.store.digests.get(digest.id))?.nextRunAt?.toISOString() === due.toISOString(),
      'a replica to schedule it',
    );

    const posted = await slack.waitForMessage('C_GENERAL', (m) =>
      textsOf(m).join(' ').includes(`digest #${digest.id}`),
    );
    await new Promise((r) => setTimeout(r, 1500)); // room for a duplicate to show up, if there were one
    const posts = slack.messages('C_GENERAL').filter((m) => textsOf(m).join(' ').includes(`digest #${digest.id}`));
    expect(posts).toHaveLength(1);
    const { rows } = await admin.query<{ status: string; message_ts: string; claimed_by: string }>(
      'select status, message_ts, claimed_by from digest_runs where digest_id = $1',
      [digest.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'posted', message_ts: posted.ts });
    expect(rows[0]!.claimed_by).toMatch(/^replica-[012]$/);
  });

  it('an answer one replica asked the API for serves the same question on the others', async () => {
    const asked = { startDate: '2026-01-05', endDate: '2026-01-11', page: 1, limit: 7 };
    const countries = () => demo.requests.filter((r) => r.path.endsWith('/countries')).length;
    const before = countries();
    const fetchers = await Promise.all(replicas.map(async (r) => (await r.tenants.of('T_LOOKOUT')).fetcher));
    const answers = await Promise.all(fetchers.map((f) => f.report('countries', asked)));
    expect(countries() - before).toBe(1);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('a signed request accepted by one replica is refused as a replay by the others', async () => {
    const body = new URLSearchParams({
      team_id: 'T_LOOKOUT',
      channel_id: 'C_GENERAL',
      user_id: 'U_BOB',
      command: '/traffic',
      text: 'help',
      response_url: `${slack.url}/response/replay`,
      trigger_id: 't.replay',
    }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const send = (r: Lookout) =>
      fetch(r.requestUrl!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': computeSignature(signingSecret, body, timestamp),
        },
        body,
      }).then((res) => res.status);
    expect([await send(replicas[0]!), await send(replicas[1]!), await send(replicas[2]!)]).toEqual([200, 401, 401]);
  });

  it('the per-person limit is counted across replicas: the 5th request for data, on any replica, is refused', async () => {
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      slack.setAppUrl(replicas[i % 3]!.requestUrl!);
      const before = slack.messages('C_MARKETING', { user: 'U_CAROL' }).length;
      await slack.slash('C_MARKETING', 'U_CAROL', 'sources last7d');
      const m = await slack.waitFor(() =>
        slack
          .messages('C_MARKETING', { user: 'U_CAROL' })
          .slice(before)
          .find((x) => x.user !== 'U_CAROL'),
      );
      answers.push(textsOf(m).join(' '));
    }
    expect(answers.slice(0, 4).every((a) => !a.includes('Try again in'))).toBe(true);
    expect(answers[4]).toContain(
      'You have used the 4 analytics API requests one person may make in this workspace within 1 minute',
    );
    const { rows } = await admin.query<{ points: number }>(
      "select points from rate_limits where key = 'user:T_LOOKOUT:U_CAROL'",
    );
    expect(rows[0]?.points).toBe(5);
  });
});
