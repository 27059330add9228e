import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectedFailure } from '@lookout/sandbox/slack';
import { textsOf } from '../../support/sandbox.js';
import {
  startReplica,
  startWorld,
  alertsFor,
  untilLogged,
  wholeText,
  type Replica,
  type World,
} from '../../support/harness.js';
import { demoAttackers } from '../../support/threat-scan.js';

/**
 * One sick channel, one healthy one, both subscribed to threat alerts. Slack hangs,
 * refuses once, refuses always, answers 429 and answers 500 for the sick channel: the
 * healthy one is alerted on time every time, and the sick one gets everything it can.
 */
const SICK = 'C_SECURITY';
const HEALTHY = 'C_GENERAL';
let world: World;
let app: Replica;
let dir: string;
let next = 0;

function attacker(): string {
  const ids = demoAttackers(world.demo);
  return ids[20 + next++]!;
}

beforeAll(async () => {
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), 'lookout-chaos-slack-'));
  app = await startReplica(world, 'solo', { DATA_DIR: dir });
  world.slack.setAppUrl(`${app.url}/slack/events`);
  for (const channel of [SICK, HEALTHY]) {
    await world.slack.slash(channel, 'U_ALICE', 'alerts on min medium');
    await world.slack.waitForMessage(
      channel,
      (m) => m.ephemeralTo === 'U_ALICE' && wholeText(m).includes('Threat alerts are on'),
      10_000,
    );
  }
}, 60_000);
afterAll(async () => {
  await app?.kill();
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new threat now; how long until the healthy channel shows it (ms). */
async function threat(): Promise<{ id: string; healthyMs: number }> {
  const id = attacker();
  const started = Date.now();
  world.demo.dataset.addVisit({
    visitor_id: id,
    date: new Date().toISOString(),
    url: 'https://www.example-shop.com/login',
  });
  await untilLogged(
    () => alertsFor(world.slack, HEALTHY, id).length > 0,
    15_000,
    () => app.lines,
  );
  return { id, healthyMs: Date.now() - started };
}

const FAULTS: [string, InjectedFailure, number][] = [
  ['hangs', 'hang', 1],
  ['refuses the blocks once', 'invalid_blocks', 1],
  ['answers 429', { status: 429, retryAfter: 2 }, 1],
  ['answers 500', { status: 500 }, 2],
];

describe('Slack faults in one channel', () => {
  it.each(FAULTS)(
    'when Slack %s there, the healthy channel is alerted on time and the sick one gets the alert',
    async (name, failure, times) => {
      world.slack.failNext('chat.postMessage', failure, times, { channel: SICK });
      const { id, healthyMs } = await threat();
      const sickStarted = Date.now() - healthyMs;
      // One scan (1 s) and one post: on time whatever the sick channel does.
      expect(healthyMs).toBeLessThan(4_000);
      if (failure === 'hang')
        await untilLogged(
          () => app.lines.some((l) => l.reason === 'timed out'),
          10_000,
          () => app.lines,
        );
      world.slack.clearFailures();
      await untilLogged(
        () => alertsFor(world.slack, SICK, id).length > 0,
        30_000,
        () => app.lines,
      );
      console.log(
        `chaos: Slack ${name} in ${SICK}: ${HEALTHY} alerted ${healthyMs} ms after the visit, ${SICK} ${Date.now() - sickStarted} ms after`,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      expect(alertsFor(world.slack, SICK, id)).toHaveLength(1);
      expect(alertsFor(world.slack, HEALTHY, id)).toHaveLength(1);
      expect(app.alive()).toBe(true);
    },
  );

  it('when Slack refuses the channel always, the alert fails with the reason, the owner is told once, and status says so', async () => {
    // Refused always: posts and edits alike (an earlier test's group is still open in the sick channel, and
    // an edit Slack took would say the channel is fine again).
    world.slack.failNext('chat.postMessage', 'not_in_channel', Infinity, { channel: SICK });
    world.slack.failNext('chat.update', 'not_in_channel', Infinity, { channel: SICK });
    const { id: first, healthyMs } = await threat();
    const { id: second } = await threat();
    expect(healthyMs).toBeLessThan(4_000);
    await untilLogged(
      // Both visitors' alerts (each group's edit fails too, and is not what this waits for).
      () =>
        app.lines.filter(
          (l) => l.msg === 'delivery failed for good' && l.reason === 'not_in_channel' && l.kind === 'alert',
        ).length >= 2,
      15_000,
      () => app.lines,
    );
    expect(alertsFor(world.slack, SICK, first)).toHaveLength(0);
    expect(alertsFor(world.slack, SICK, second)).toHaveLength(0);
    const notices = world.slack
      .messages('D_U_ALICE')
      .filter((m) => m.text.includes(`<#${SICK}> (Slack said not_in_channel)`));
    expect(notices).toHaveLength(1);
    await world.slack.slash(SICK, 'U_BOB', 'alerts status');
    const status = await world.slack.waitForMessage(
      SICK,
      (m) => m.ephemeralTo === 'U_BOB' && wholeText(m).includes('Deliveries'),
      10_000,
    );
    const shown = textsOf(status).join(' ');
    expect(shown).toMatch(/Needs attention/);
    expect(shown.match(/alert failed \(not_in_channel\)/g)).toHaveLength(2);
    expect(app.alive()).toBe(true);
  });
});
