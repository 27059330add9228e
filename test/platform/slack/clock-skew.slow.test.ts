import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

/**
 * A replica whose clock is 301 s off refuses every request from Slack (the timestamp
 * window is 5 minutes): the refusals are counted in /metrics, and /readyz says the clock
 * is off, with the skew for the token holder only. Once the clock is right again the
 * requests are accepted and the check recovers.
 */
const TOKEN = 'ops-token-clock-0123456789';

describe.each([
  { name: '301 s ahead, no token', offsetMs: 301_000, reason: 'stale_timestamp', token: undefined },
  { name: '301 s behind, with a token', offsetMs: -301_000, reason: 'future_timestamp', token: TOKEN },
])('a replica whose clock is $name', ({ offsetMs, reason, token }) => {
  let box: Sandbox & { logs: string[] };
  let offset = offsetMs;
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const readyz = async () => {
    const res = await fetch(`${box.lookout.ops.url}/readyz`, { headers });
    return {
      status: res.status,
      body: (await res.json()) as { ok: boolean; checks: Record<string, string>; details?: Record<string, string> },
    };
  };
  const refused = async () => {
    const text = await (await fetch(`${box.lookout.ops.url}/metrics`, { headers })).text();
    const line = text.split('\n').find((l) => l.startsWith(`lookout_requests_refused_total{reason="${reason}"} `));
    return line ? Number(line.split(' ')[1]) : 0;
  };

  beforeAll(async () => {
    box = await sandbox({
      scheduler: false,
      requestClock: () => Date.now() + offset,
      ...(token ? { ops: { token } } : {}),
    });
  }, 30_000);
  afterAll(() => box?.stop());

  it('refuses correctly signed requests from Slack, counts them, and /readyz says the clock is off', async () => {
    for (let i = 0; i < 3; i++) {
      const delivery = await box.slack.slash('C_GENERAL', 'U_ALICE', 'help');
      expect(delivery.status).toBe(401);
    }
    expect(await refused()).toBe(3);
    const skewed = await until(
      async () => {
        const r = await readyz();
        return r.body.checks.clock === 'skewed' ? r : undefined;
      },
      '/readyz to report the clock',
      30_000,
    );
    expect(skewed.status).toBe(503);
    expect(skewed.body.checks).toEqual({ store: 'ok', api: 'ok', clock: 'skewed' });
    const seconds = Math.round(offsetMs / 1000);
    if (token) {
      // Slack's timestamps are whole seconds: the skew measured is within a second of the offset.
      expect(skewed.body.details?.clock).toMatch(
        new RegExp(
          `clock is (${Math.abs(seconds) - 1}|${Math.abs(seconds)}|${Math.abs(seconds) + 1}) s ${seconds > 0 ? 'ahead of' : 'behind'} Slack's`,
        ),
      );
    } else {
      expect(skewed.body).toEqual({ ok: false, checks: { store: 'ok', api: 'ok', clock: 'skewed' } });
      expect(JSON.stringify(skewed.body)).not.toMatch(/\d{3}/);
    }
    const logged = box.logs.find((l) => l.includes("this replica's clock is"));
    expect(Math.abs(Number(/"skewSeconds":(-?\d+)/.exec(logged ?? '')?.[1]) - seconds)).toBeLessThanOrEqual(1);
  });

  it('accepts them once the clock is right, and the check recovers', async () => {
    offset = 0;
    const delivery = await box.slack.slash('C_GENERAL', 'U_ALICE', 'help');
    expect(delivery.status).toBe(200);
    const ready = await until(
      async () => {
        const r = await readyz();
        return r.status === 200 ? r : undefined;
      },
      '/readyz to recover',
      30_000,
    );
    expect(ready.body.checks).toEqual({ store: 'ok', api: 'ok', clock: 'ok' });
    expect(await refused()).toBe(3);
  });
});
