import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../support/sandbox.js';
import { sandbox } from '../support/sandbox.js';

let box: Sandbox & { logs: string[] };
const base = () => box.lookout.requestUrl!.replace(/\/slack\/events$/, '');

beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box?.stop();
});

describe('health routes', () => {
  it('/healthz says the process is up', async () => {
    const response = await fetch(`${base()}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('/readyz is 200 while the API answers and 503, naming the reason, while it does not', async () => {
    const ok = await fetch(`${base()}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checks: { api: 'ok', store: 'ok' } });

    box.demo!.setFaults({ status500Until: 100 });
    const down = await fetch(`${base()}/readyz`);
    box.demo!.setFaults({});
    expect(down.status).toBe(503);
    const body = (await down.json()) as { ok: boolean; checks: { api: string } };
    expect(body.ok).toBe(false);
    expect(body.checks.api).toMatch(/unavailable/);
    expect(JSON.stringify(body)).not.toContain(box.secrets.apiKey);
  });
});
