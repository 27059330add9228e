import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxApp, type SandboxWiring } from '../../src/start.js';
import type { ProducedSpike } from '../../src/demo-api/spikes.js';

interface ControlAnswer {
  ok: boolean;
  available: boolean;
  spike: ProducedSpike;
  spikes: ProducedSpike[];
  text: string;
}

let box: Sandbox<SandboxApp>;
let wiring: SandboxWiring;
let app: Server;
let redirectUrl: string;

beforeAll(async () => {
  app = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  redirectUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/oauth_redirect`;
  box = await startSandbox({
    log: pino({ level: 'silent' }),
    startApp: (given) => {
      wiring = given;
      return Promise.resolve({ oauthRedirectUrl: redirectUrl, stop: () => Promise.resolve() });
    },
  });
});

afterAll(async () => {
  await box.stop();
  await new Promise((resolve) => app.close(resolve));
});

describe('startSandbox: an account per workspace, and OAuth for a distributed app', () => {
  it('hands the app one account per workspace, each its own key', async () => {
    expect(wiring.accounts.map((a) => [a.teamId, a.name])).toEqual([
      ['T_LOOKOUT', 'one'],
      ['T_OTHER', 'two'],
    ]);
    const [one, two] = wiring.accounts;
    expect(one).toMatchObject(wiring.api);
    expect(two!.apiKey).not.toBe(one!.apiKey);
    expect(box.secrets.apiKeys).toEqual([one!.apiKey, two!.apiKey]);

    box.demo!.resetRequests();
    const ask = (key: string) =>
      fetch(`${two!.baseUrl}/traffic/sources?start_date=2000-01-01&end_date=2100-01-01`, {
        method: 'POST',
        headers: { 'x-api-key': key },
      }).then(async (res) => ({ status: res.status, rows: await res.json() }));
    const [a, b] = [await ask(one!.apiKey), await ask(two!.apiKey)];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.rows).not.toEqual(a.rows);
    expect(box.demo!.requests.map((r) => r.account)).toEqual(['one', 'two']);
  });

  it("shows each workspace's demo account on its page, for a person to connect Lookout by hand", async () => {
    const shown = async (query: string) =>
      ((await (await fetch(`${box.slack.url}/ui/workspace${query}`)).json()) as { demo_account: unknown }).demo_account;
    const [one, two] = wiring.accounts;
    expect(await shown('')).toEqual({ base_url: one!.baseUrl, api_key: one!.apiKey });
    expect(await shown('?team=T_OTHER')).toEqual({ base_url: two!.baseUrl, api_key: two!.apiKey });
  });

  it('registers the app for distribution, with the redirect URL the app gave', async () => {
    const { oauth } = wiring;
    expect(oauth.authorizationUrl).toBe(`${box.slack.url}/oauth/v2/authorize`);
    expect(box.secrets).toMatchObject({ clientSecret: oauth.clientSecret, stateSecret: oauth.stateSecret });
    const authorize = (redirect?: string) => {
      const url = new URL(oauth.authorizationUrl);
      url.searchParams.set('client_id', oauth.clientId);
      url.searchParams.set('scope', 'commands,chat:write');
      url.searchParams.set('state', 's1');
      url.searchParams.set('team', 'T_OTHER');
      if (redirect) url.searchParams.set('redirect_uri', redirect);
      return fetch(url).then((res) => res.status);
    };
    expect(await authorize()).toBe(200);
    expect(await authorize(redirectUrl)).toBe(200);
    expect(await authorize('http://127.0.0.1:1/elsewhere')).toBe(400);
  });
});

describe('startSandbox against a real analytics API', () => {
  it('shows no account on the page: only demo keys are shown', async () => {
    const real = { baseUrl: 'http://127.0.0.1:9', apiKey: 'a-real-accounts-key-1234' };
    const withApi = await startSandbox({
      log: pino({ level: 'silent' }),
      api: real,
      startApp: () => Promise.resolve({ stop: () => Promise.resolve() }),
    });
    try {
      const body = await (await fetch(`${withApi.slack.url}/ui/workspace`)).text();
      expect(JSON.parse(body)).toMatchObject({ ok: true, demo_account: null });
      expect(body).not.toContain(real.apiKey);
    } finally {
      await withApi.stop();
    }
  });
});

describe('the demo controls: a person produces a spike in the workspace’s own account', () => {
  const control = (method: string, path: string, team: string, body?: unknown) =>
    fetch(`${box.slack.url}${path}?team=${team}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, json: (await res.json()) as ControlAnswer }));

  it('a scraper wave in Other Co lands in its account, on its pricing page, up to now', async () => {
    expect((await control('GET', '/ui/demo', 'T_OTHER')).json).toEqual({ ok: true, available: true, spikes: [] });
    expect((await control('GET', '/ui/demo', 'T_NOWHERE')).json).toEqual({ ok: true, available: false, spikes: [] });
    const before = Date.now();
    const { status, json } = await control('POST', '/ui/demo/spike', 'T_OTHER', { kind: 'scraper' });
    expect(status).toBe(200);
    expect(json.spike).toMatchObject({ kind: 'scraper', visits: 140, flaggedVisits: 140, page: { path: '/plans' } });
    expect(Date.parse(json.spike.to)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(json.spike.to)).toBeLessThanOrEqual(Date.now() + 1);
    expect(json.text).toMatch(
      /^Scraper wave: 140 visits on \/plans by 10 new scrapers, from Direct, \d\d:\d\d–\d\d:\d\d UTC; 140 of the 140 visits by flagged visitors\.$/,
    );
    expect(box.demo!.account('two').spikes).toEqual([json.spike]);
    expect(box.demo!.account('one').spikes).toEqual([]);
    expect((await control('GET', '/ui/demo', 'T_OTHER')).json.spikes).toEqual([json.spike]);
  });

  it('a human spike in Lookout Sandbox shows in its API answers', async () => {
    const { json } = await control('POST', '/ui/demo/spike', 'T_LOOKOUT', { kind: 'human', visits: 30 });
    expect(json.spike).toMatchObject({ kind: 'human', visits: 30, flaggedVisits: 0, source: { name: 'x.com' } });
    expect(json.text).toMatch(/^Human spike: 30 visits from x\.com by 30 new visitors, .* UTC; none flagged\.$/);
    const day = json.spike.from.slice(0, 10);
    const res = await fetch(`${wiring.api.baseUrl}/traffic/sources?start_date=${day}&end_date=${day}`, {
      method: 'POST',
      headers: { 'x-api-key': wiring.api.apiKey },
    });
    const rows = (await res.json()) as { name: string; total_visits: number }[];
    expect(rows.find((r) => r.name === 'x.com')?.total_visits).toBe(30);
  });

  it('refuses what it cannot do, and the page offers the controls', async () => {
    expect((await control('POST', '/ui/demo/spike', 'T_LOOKOUT', { kind: 'bots' })).status).toBe(400);
    expect((await control('POST', '/ui/demo/spike', 'T_NOWHERE', { kind: 'human' })).status).toBe(404);
    const page = await fetch(`${box.slack.url}/`).then((res) => res.text());
    expect(page).toContain('data-testid="demo-human-spike"');
    expect(page).toContain('data-testid="demo-scraper-wave"');
  });
});
