import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/sandbox.js';
import { sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

let box: Sandbox & { logs: string[] };
const base = () => box.lookout.requestUrl!.replace(/\/slack\/events$/, '');

beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box?.stop();
});

describe('health routes', () => {
  it('/healthz says the process is up, on the Slack port', async () => {
    const response = await fetch(`${base()}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('/readyz, on the ops port, is 200 while the API answers and 503, naming the check, while it does not', async () => {
    const ok = await fetch(`${box.lookout.ops.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checks: { api: 'ok', store: 'ok', clock: 'ok' } });

    box.demo!.setFaults({ status500Until: 1_000_000 });
    try {
      // Readiness is cached for a few seconds: the fault shows once the cached answer is stale.
      const down = await until(
        async () => {
          const res = await fetch(`${box.lookout.ops.url}/readyz`);
          return res.status === 503 ? await res.text() : undefined;
        },
        '/readyz to answer 503',
        30_000,
      );
      expect(JSON.parse(down)).toEqual({ ok: false, checks: { api: 'down', store: 'ok', clock: 'ok' } });
      expect(down).not.toContain(box.secrets.apiKey);
    } finally {
      box.demo!.setFaults({});
    }
  }, 60_000);
});
