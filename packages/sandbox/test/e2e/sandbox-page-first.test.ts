import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { OfflineSlack } from '../../src/slack/index.js';
import { startSandbox, type SandboxApp } from '../../src/start.js';

/** A promise and its resolve and reject, to hold the app's start until the test lets it go. */
function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

describe('npm start serves the page first: its requests wait for the app', () => {
  it('serves the page and its files while the app starts, and answers its requests once the app is ready', async () => {
    const served = held<OfflineSlack>();
    const app = held<SandboxApp>();
    const order: string[] = [];
    const starting = startSandbox({
      log: pino({ level: 'silent' }),
      startApp: () => app.promise,
      early: {
        pageServed: (slack) => served.resolve(slack),
        ready: async (box) => {
          order.push('ready');
          expect(box.demo?.accounts[0]?.generated).toBe(false); // made at its first request, not before the page
        },
      },
    });
    const slack = await served.promise;
    const page = await fetch(`${slack.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div class="app" id="app">');
    const arrived = new Promise((resolve) => slack.server.once('request', resolve));
    const workspace = fetch(`${slack.url}/ui/workspace`).then(async (res) => {
      order.push('workspace answered');
      return { status: res.status, body: (await res.json()) as { team: { id: string } } };
    });
    await arrived;
    expect((await fetch(`${slack.url}/ui/assets/app.js`)).status).toBe(200);
    expect((await fetch(`${slack.url}/ui/emoji.json`)).status).toBe(200);
    order.push('app started');
    app.resolve({ stop: () => Promise.resolve() });
    const box = await starting;
    try {
      expect(await workspace).toMatchObject({ status: 200, body: { team: { id: 'T_LOOKOUT' } } });
      expect(order).toEqual(['app started', 'ready', 'workspace answered']);
    } finally {
      await box.stop();
    }
  });

  it('answers the page’s requests 503 with why when the app does not start, and stops', async () => {
    const served = held<OfflineSlack>();
    const app = held<SandboxApp>();
    const starting = startSandbox({
      log: pino({ level: 'silent' }),
      startApp: () => app.promise,
      early: { pageServed: (slack) => served.resolve(slack), ready: () => Promise.resolve() },
    });
    const slack = await served.promise;
    const arrived = new Promise((resolve) => slack.server.once('request', resolve));
    const workspace = fetch(`${slack.url}/ui/workspace`).then(async (res) => ({
      status: res.status,
      body: await res.json(),
    }));
    await arrived;
    app.reject(new Error('DATA_DIR is not a Lookout data directory'));
    await expect(starting).rejects.toThrow('DATA_DIR is not a Lookout data directory');
    expect(await workspace).toEqual({
      status: 503,
      body: {
        ok: false,
        error: 'app_not_started',
        detail: 'Lookout did not start: DATA_DIR is not a Lookout data directory',
      },
    });
  });
});
