import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

/**
 * /metrics and /readyz on their own listener (loopback by default), /healthz alone on the
 * Slack port; readiness cached and shared, so hits never reach the analytics API one for
 * one; and an answer to a caller without the token names which check failed, never why.
 */
const TOKEN = 'ops-token-0123456789abcdef';
const slackBase = (box: Sandbox) => box.lookout.requestUrl!.replace(/\/slack\/events$/, '');
/** The readiness probe's one-row report (countries of 1970-01-01): what /readyz costs the API. */
const probes = (box: Sandbox) => box.demo!.requests.filter((r) => r.query.start_date === '1970-01-01').length;

describe('the ops listener, without a token', () => {
  let box: Sandbox & { logs: string[] };
  beforeAll(async () => {
    box = await sandbox({ scheduler: false });
  }, 30_000);
  afterAll(() => box?.stop());

  it('serves /metrics and /readyz, and the Slack port does not (it keeps /healthz)', async () => {
    for (const path of ['/metrics', '/readyz']) {
      const onSlack = await fetch(`${slackBase(box)}${path}`);
      await onSlack.arrayBuffer();
      expect(onSlack.status, `${path} on the Slack port`).toBe(404);
      const onOps = await fetch(`${box.lookout.ops.url}${path}`);
      await onOps.arrayBuffer();
      expect(onOps.status, `${path} on the ops port`).toBe(200);
    }
    const health = await fetch(`${slackBase(box)}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect(box.lookout.ops.url).not.toBe(slackBase(box));
  });

  it("shows the process's own figures: CPU, memory, the event loop, the heap, GC and Node's version", async () => {
    const text = await (await fetch(`${box.lookout.ops.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const [user, system, total] = ['user_', 'system_', ''].map((k) =>
      value(`lookout_process_process_cpu_${k}seconds_total`),
    );
    expect(total).toBeGreaterThan(0);
    expect(user! + system!).toBeCloseTo(total!, 6);
    for (const name of [
      'lookout_process_process_start_time_seconds',
      'lookout_process_process_resident_memory_bytes',
      'lookout_process_process_open_fds',
      'lookout_process_nodejs_active_handles_total',
      'lookout_process_nodejs_heap_size_used_bytes',
    ])
      expect(value(name), name).toBeGreaterThan(0);
    expect(text).toMatch(/^lookout_process_nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^lookout_process_nodejs_version_info\{version="v\d+/m);
    expect(text).toContain('# TYPE lookout_process_nodejs_gc_duration_seconds histogram');
  });

  it('is bound to loopback', () => {
    expect(box.lookout.ops.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('answers any number of concurrent /readyz hits with one analytics API request, even while the API is slow', async () => {
    await until(
      async () => (await fetch(`${box.lookout.ops.url}/readyz`)).status === 200 || undefined,
      'ready',
      30_000,
    );
    // Past the cache window of the hit above: wait until a hit reaches the API again.
    box.demo!.setFaults({ latencyMs: 500 });
    try {
      await until(
        async () => {
          box.demo!.resetRequests();
          await Promise.all(
            Array.from({ length: 5 }, () => fetch(`${box.lookout.ops.url}/readyz`).then((r) => r.arrayBuffer())),
          );
          return probes(box) > 0 || undefined;
        },
        'a /readyz hit past the cache window',
        30_000,
      );
      expect(probes(box)).toBe(1);
      // Now within the window: 60 concurrent hits, and another 60.
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`${box.lookout.ops.url}/readyz`).then(async (r) => ({ status: r.status, body: await r.json() })),
        ),
      );
      await Promise.all(
        Array.from({ length: 60 }, () => fetch(`${box.lookout.ops.url}/readyz`).then((r) => r.arrayBuffer())),
      );
      expect(probes(box)).toBe(1);
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    } finally {
      box.demo!.setFaults({});
    }
  }, 60_000);

  it('names the failed check and nothing else while the API is down: no error text, address or id', async () => {
    box.demo!.setFaults({ status500Until: 1_000_000 });
    try {
      const down = await until(
        async () => {
          const res = await fetch(`${box.lookout.ops.url}/readyz`);
          return res.status === 503 ? await res.text() : undefined;
        },
        '/readyz to say the API is down',
        30_000,
      );
      expect(JSON.parse(down)).toEqual({ ok: false, checks: { store: 'ok', api: 'down', clock: 'ok' } });
      expect(box.logs.some((l) => l.includes('not ready') && l.includes('HTTP 500'))).toBe(true);
    } finally {
      box.demo!.setFaults({});
    }
  }, 60_000);
});

/** A port nothing listens on: an analytics API there refuses connections, and its error names the address and port. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('the ops listener while the API refuses connections', () => {
  let box: Sandbox & { logs: string[] };
  let apiPort: number;
  beforeAll(async () => {
    apiPort = await closedPort();
    box = await sandbox({ scheduler: false, api: { baseUrl: `http://127.0.0.1:${apiPort}`, apiKey: 'k' } });
  }, 30_000);
  afterAll(() => box?.stop());

  it('an unauthenticated /readyz names the failed check, not the address or the error', async () => {
    const res = await fetch(`${box.lookout.ops.url}/readyz`);
    const body = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(body)).toEqual({ ok: false, checks: { store: 'ok', api: 'down', clock: 'ok' } });
    expect(body).not.toContain(String(apiPort));
    expect(body).not.toMatch(/127\.0\.0\.1|ECONN|refused/i);
    // The why is in the log, for the operator.
    expect(box.logs.some((l) => l.includes('not ready') && l.includes('ECONNREFUSED'))).toBe(true);
  });
});

describe('the ops listener with OPS_TOKEN', () => {
  let box: Sandbox & { logs: string[] };
  beforeAll(async () => {
    const apiPort = await closedPort();
    box = await sandbox({
      scheduler: false,
      ops: { token: TOKEN },
      api: { baseUrl: `http://127.0.0.1:${apiPort}`, apiKey: 'k' },
    });
  }, 30_000);
  afterAll(() => box?.stop());

  it('answers 401 without the token or with a wrong one, on both routes, and 200 with it', async () => {
    for (const path of ['/metrics', '/readyz']) {
      for (const authorization of [
        undefined,
        'Bearer wrong',
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        `Basic ${TOKEN}`,
        TOKEN,
      ]) {
        const res = await fetch(`${box.lookout.ops.url}${path}`, { headers: authorization ? { authorization } : {} });
        const body = await res.text();
        expect(res.status, `${path} with ${authorization ?? 'no authorization'}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(body).not.toContain(TOKEN);
        expect(body).not.toMatch(/lookout_|127\.0\.0\.1|"checks"/);
      }
    }
    const metrics = await fetch(`${box.lookout.ops.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('lookout_requests_total');
  });

  it('shows the token holder why a check failed', async () => {
    const res = await fetch(`${box.lookout.ops.url}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ok: boolean; checks: Record<string, string>; details: Record<string, string> };
    expect(body.checks).toEqual({ store: 'ok', api: 'down', clock: 'ok' });
    expect(body.details.api).toMatch(/unavailable.*ECONNREFUSED/);
  });
});
