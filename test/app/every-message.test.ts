/**
 * Every kind of message Lookout produces, made by the running app in the sandbox and sent
 * through its preflight to the offline Slack, which enforces Slack's rules: report answers,
 * trends, visitor cards, digests, threat alerts, watch alerts, lists, help, problems, the
 * Home tab and the modals. Slack refuses none, the preflight changes none (the guard in
 * test/support fails any test where it had to), and no message holds an alert block.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { colourOf, headerOf, mrkdwnOf, sandbox, USER, type Sandbox } from '../support/sandbox.js';
import { until } from '../support/until.js';
import { run } from '../support/answers.js';

type Box = Sandbox & { logs: string[] };
let box: Box;

beforeAll(async () => {
  box = await sandbox({
    settings: {
      SECURITY_CHANNELS: ['C_SECURITY'],
      SECURITY_USERS: ['U_CAROL'],
      ADMIN_USERS: ['U_CAROL'],
      // A watch is judged as soon as its period is final, whatever the hour the tests run at.
      WATCH_SPREAD_HOURLY: 0,
      WATCH_SPREAD_DAILY: 0,
    },
  });
});
afterAll(() => box?.stop());

const CHANNEL = 'C_MARKETING';

/** Runs a command and waits for its answer (any message to that person after it). */
const command = (text: string, channel = CHANNEL, user = USER, slash = '/traffic') =>
  run(box, text, { command: slash, channel, user });

const refused = () => box.slack.webApi.calls.filter((c) => !c.ok && /^invalid_/.test(c.error ?? ''));

it('answers, cards, trends, lists, help and problems', async () => {
  for (const text of [
    'sources last7d',
    'pages last30d top 20',
    'visits today',
    'countries last7d by visits asc',
    'trend sources last30d',
    'trend visits last7d',
    'trend pages source:google last30d',
    'help',
    'help examples',
    'no-such-report',
    'sources last99999d',
  ]) {
    await command(text);
  }
  // Visitor lookups work in the security channels.
  for (const id of Object.values(DEMO_VISITORS)) await command(id, 'C_SECURITY', 'U_CAROL', '/visitor');
  const cards = box.slack
    .messages('C_SECURITY', { user: 'U_CAROL' })
    .filter((m) => (headerOf(m) ?? '').includes('visitor v_demo_'));
  expect(cards.map((m) => colourOf(m)).sort()).toEqual(['error', 'info', 'success', 'warning', 'warning']);
});

it('digests: added, listed and previewed, with their chart', async () => {
  await command('digest add daily 09:00 sources pages countries');
  await command('digest list');
  const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
  const preview = await command(`digest preview ${digest!.id}`);
  expect(headerOf(preview)).toMatch(/^Digest/);
  expect(JSON.stringify(preview.blocks)).toContain('data_visualization');
});

it('threat alerts, coloured by severity', async () => {
  await command('alerts on', 'C_SECURITY', 'U_CAROL');
  // Flagged visitors come back after the threat scan began.
  const at = Date.now();
  for (const [i, id] of [DEMO_VISITORS.attacker, DEMO_VISITORS.scraper].entries()) {
    box.demo!.dataset.addVisit({
      visitor_id: id,
      date: new Date(at + i * 1000).toISOString(),
      url: 'https://www.example-shop.com/checkout',
    });
  }
  await box.lookout.features.threats.scan.scan();
  box.lookout.deliveries.wake();
  // Both in one scan: their group's message, and an alert each in its thread.
  const alerts = await until(() => {
    const found = box.slack
      .messages('C_SECURITY', { user: 'U_CAROL' })
      .filter((m) => m.via === 'api' && (headerOf(m) ?? '') !== '')
      .flatMap((m) => box.slack.thread('C_SECURITY', m.ts));
    return found.length >= 3 ? found : undefined;
  }, 'a threat alert');
  expect(alerts.map((m) => colourOf(m))).toEqual(['error', 'error', 'warning']);
});

it('watch alerts, with their chart beside the coloured bar', async () => {
  const confirmation = await command('watch visits above 0 every day');
  expect(mrkdwnOf(confirmation).join(' ')).toMatch(/Watch #\d+ added/);
  await box.lookout.features.watches.evaluator.tick();
  box.lookout.deliveries.wake();
  const alert = await until(
    () => box.slack.messages(CHANNEL, { user: USER }).find((m) => (headerOf(m) ?? '').startsWith('Watch:')),
    'the watch alert',
  );
  expect(colourOf(alert)).toBe('warning');
  await command('watch list');
});

it('the Home tab and the modals', async () => {
  const before = box.slack.workspace.home('U_CAROL')?.publishes ?? 0;
  await box.slack.event('app_home_opened', 'U_CAROL', { tab: 'home', channel: 'D_U_CAROL' });
  await until(
    () => ((box.slack.workspace.home('U_CAROL')?.publishes ?? 0) > before ? true : undefined),
    "Carol's Home",
  );
  const opened = () => box.slack.webApi.calls.filter((c) => c.method === 'views.open' && c.ok).length;
  await box.slack.slash(CHANNEL, USER, 'digest add');
  await until(() => (opened() >= 1 ? true : undefined), 'the digest form');
  const report = await command('sources last7d');
  await box.slack.click(report, 'report.filter');
  await until(() => (opened() >= 2 ? true : undefined), 'the filter modal');
});

it('nothing was refused by Slack, nothing failed on the way, and no message holds an alert block', () => {
  expect(refused()).toEqual([]);
  expect(
    box.logs.filter(
      (l) => l.includes('listener failed') || l.includes("broke Slack's rules") || l.includes('fitted to Slack'),
    ),
  ).toEqual([]);
  for (const channel of [CHANNEL, 'C_SECURITY']) {
    for (const m of box.slack.messages(channel, { user: channel === CHANNEL ? USER : 'U_CAROL' }))
      expect(JSON.stringify(m.blocks ?? []) + JSON.stringify(m.attachments ?? [])).not.toContain('"type":"alert"');
  }
});
