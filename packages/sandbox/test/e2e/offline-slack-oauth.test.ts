/**
 * What a distributed app meets at the offline Slack: two workspaces, the OAuth v2 authorise
 * page and its redirect, `oauth.v2.access` (codes, token rotation), tokens that act in their
 * own workspace only, and uninstall's events. All over real HTTP; a bare HTTP server plays
 * the app and checks every event's signature itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_S, CODE_TTL_MS, startOfflineSlack, type OfflineSlack } from '../../src/slack/index.js';
import { computeSignature } from '../../src/slack/signing.js';

const signingSecret = 'oauth-test-signing-secret';
const botToken = 'xoxb-oauth-test';
const app = {
  clientId: '1111.2222',
  clientSecret: 'oauth-test-client-secret',
  name: 'Lookout',
  redirectUris: ['http://127.0.0.1:9/slack/oauth_redirect'],
};
const redirectUri = app.redirectUris[0] ?? '';

let clock = Date.parse('2026-11-25T09:00:00Z');
let slack: OfflineSlack;
let receiver: Server;
const events: Array<{ body: Record<string, unknown>; signed: boolean }> = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-slack-request-timestamp'] ?? '');
      const signed = req.headers['x-slack-signature'] === computeSignature(signingSecret, raw, ts);
      events.push({ body: JSON.parse(raw) as Record<string, unknown>, signed });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  slack = await startOfflineSlack({
    signingSecret,
    botToken,
    oauth: app,
    now: () => clock,
    rateLimit: false,
    appUrl: `http://127.0.0.1:${port}/slack/events`,
  });
});

afterAll(async () => {
  await slack.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});

afterEach(() => {
  slack.configureOAuth(app);
  events.length = 0;
});

async function api(method: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return (await res.json()) as Record<string, unknown> & { ok: boolean; error?: string };
}

const call = (token: string, method: string, fields: Record<string, string> = {}) =>
  api(method, fields, { authorization: `Bearer ${token}` });

/** Opens the authorise page as a browser would, then presses a button; the redirect's query. */
async function authorize(
  query: Record<string, string>,
  decision: 'allow' | 'cancel',
): Promise<{ page: string; redirect: URL }> {
  const url = new URL('/oauth/v2/authorize', slack.url);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const pageRes = await fetch(url);
  expect(pageRes.status).toBe(200);
  const page = await pageRes.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
  const form = new URLSearchParams({
    request: field('request'),
    user: field('user'),
    team: field('team'),
    decision,
  });
  const res = await fetch(new URL('/oauth/v2/authorize', slack.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  return { page, redirect: new URL(res.headers.get('location') ?? '') };
}

async function install(team: string, state = 'state-1'): Promise<string> {
  const { redirect } = await authorize(
    { client_id: app.clientId, scope: 'commands,chat:write', state, redirect_uri: redirectUri, team },
    'allow',
  );
  return redirect.searchParams.get('code') ?? '';
}

describe('two workspaces', () => {
  it('holds Lookout Sandbox (the default) and Other Co, each with its own people and channels', () => {
    expect(slack.workspace.team).toMatchObject({ id: 'T_LOOKOUT', name: 'Lookout Sandbox' });
    const other = slack.team('T_OTHER').workspace;
    expect(other.team).toMatchObject({ id: 'T_OTHER', name: 'Other Co' });
    expect(other.channel('#general')?.id).toBe('C_OTHER_GENERAL');
    expect(slack.workspace.channel('#general')?.id).toBe('C_GENERAL');
    expect(other.user('alice')).toBeUndefined();
    expect(other.user('dana')?.id).toBe('U_DANA');
    expect(slack.teams.map((t) => t.workspace.team.id)).toEqual(['T_LOOKOUT', 'T_OTHER']);
  });
});

describe('the OAuth v2 flow', () => {
  it('authorise page → Allow → redirect with code and state → oauth.v2.access answers as Slack documents', async () => {
    const { page, redirect } = await authorize(
      {
        client_id: app.clientId,
        scope: 'commands,chat:write',
        state: 'st-42',
        redirect_uri: redirectUri,
        team: 'T_OTHER',
      },
      'allow',
    );
    expect(page).toContain('<strong>Lookout</strong>');
    expect(page).toContain('<strong>Other Co</strong>');
    expect(page).toContain('<code>chat:write</code>');
    expect(`${redirect.origin}${redirect.pathname}`).toBe(redirectUri);
    expect(redirect.searchParams.get('state')).toBe('st-42');
    const code = redirect.searchParams.get('code') ?? '';
    expect(code).not.toBe('');

    const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
    const answer = await api(
      'oauth.v2.access',
      { code, redirect_uri: redirectUri },
      { authorization: `Basic ${basic}` },
    );
    expect(answer).toEqual({
      ok: true,
      app_id: 'A_LOOKOUT',
      authed_user: { id: 'U_DANA' },
      scope: 'commands,chat:write',
      token_type: 'bot',
      access_token: expect.stringMatching(/^xoxb-/) as unknown,
      bot_user_id: 'U_OTHER_BOT',
      team: { id: 'T_OTHER', name: 'Other Co' },
      enterprise: null,
      is_enterprise_install: false,
    });
  });

  it("lists each scope with Slack's own description beside its code, naming the app's bot and the app", async () => {
    const { page } = await authorize(
      {
        client_id: app.clientId,
        scope: 'commands,chat:write,chat:write.public,users:read,channels:read,groups:read,emoji:read',
        state: 'st-scopes',
        redirect_uri: redirectUri,
        team: 'T_OTHER',
      },
      'cancel',
    );
    const items = [...page.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]);
    expect(items).toEqual([
      'Add shortcuts and/or slash commands that people can use <code>commands</code>',
      'Send messages as @lookout <code>chat:write</code>',
      'Send messages to channels @lookout isn&#39;t a member of <code>chat:write.public</code>',
      'View people in a workspace <code>users:read</code>',
      'View basic information about public channels in a workspace <code>channels:read</code>',
      'View basic information about private channels that Lookout has been added to <code>groups:read</code>',
      '<code>emoji:read</code> (a scope the offline Slack has no description of)',
    ]);
  });

  it("Slack's link back from an install (app_redirect) opens the app in the workspace's page", async () => {
    const back = async (query: string) => {
      const res = await fetch(new URL(`/app_redirect?${query}`, slack.url), { redirect: 'manual' });
      expect(res.status).toBe(302);
      return res.headers.get('location');
    };
    expect(await back('app=A_LOOKOUT&team=T_OTHER')).toBe('/?team=T_OTHER&app=A_LOOKOUT');
    expect(await back('app=A_LOOKOUT&team=T_LOOKOUT')).toBe('/?team=T_LOOKOUT&app=A_LOOKOUT');
    // Another app, or a workspace that is not here: the page alone, of the named workspace or workspace one.
    expect(await back('app=A_SOMEONE_ELSE&team=T_OTHER')).toBe('/?team=T_OTHER');
    expect(await back('app=A_LOOKOUT&team=T_NOWHERE')).toBe('/?team=T_LOOKOUT&app=A_LOOKOUT');
  });

  it('Cancel redirects with error=access_denied and the state, and no code', async () => {
    const { redirect } = await authorize(
      { client_id: app.clientId, scope: 'commands', state: 'st-no', redirect_uri: redirectUri },
      'cancel',
    );
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('st-no');
    expect(redirect.searchParams.has('code')).toBe(false);
  });

  it('refuses an unknown client_id or an unregistered redirect_uri on the authorise page', async () => {
    const bad = await fetch(new URL(`/oauth/v2/authorize?client_id=nope&scope=commands`, slack.url));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('invalid_client_id');
    const elsewhere = new URL('/oauth/v2/authorize', slack.url);
    elsewhere.searchParams.set('client_id', app.clientId);
    elsewhere.searchParams.set('redirect_uri', 'http://evil.example/cb');
    const res = await fetch(elsewhere);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('bad_redirect_uri');
    slack.configureOAuth({ ...app, redirectUris: [] });
    elsewhere.searchParams.set('redirect_uri', 'not a url');
    const unparsable = await fetch(elsewhere);
    expect(unparsable.status).toBe(400);
    expect(await unparsable.text()).toContain('bad_redirect_uri');
  });

  it('a code is single-use: the second exchange gets invalid_code', async () => {
    const code = await install('T_LOOKOUT');
    const creds = { client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: redirectUri };
    expect((await api('oauth.v2.access', { ...creds, code })).ok).toBe(true);
    expect(await api('oauth.v2.access', { ...creds, code })).toEqual({ ok: false, error: 'invalid_code' });
  });

  it('a code expires after ten minutes', async () => {
    const code = await install('T_LOOKOUT');
    clock += CODE_TTL_MS + 1;
    const answer = await api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
    expect(answer).toEqual({ ok: false, error: 'invalid_code' });
  });

  it('refuses a wrong secret (bad_client_secret), an unknown client (invalid_client_id), another redirect_uri (bad_redirect_uri), and the code still works after', async () => {
    const code = await install('T_LOOKOUT');
    const wrongSecret = await api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: 'guess',
      code,
      redirect_uri: redirectUri,
    });
    expect(wrongSecret).toEqual({ ok: false, error: 'bad_client_secret' });
    const basic = Buffer.from(`9999.0000:${app.clientSecret}`).toString('base64');
    expect(await api('oauth.v2.access', { code }, { authorization: `Basic ${basic}` })).toEqual({
      ok: false,
      error: 'invalid_client_id',
    });
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    expect(await api('oauth.v2.access', { ...creds, code, redirect_uri: 'http://127.0.0.1:9/other' })).toEqual({
      ok: false,
      error: 'bad_redirect_uri',
    });
    expect((await api('oauth.v2.access', { ...creds, code, redirect_uri: redirectUri })).ok).toBe(true);
  });
});

describe('tokens', () => {
  async function tokenFor(team: string): Promise<Record<string, unknown>> {
    const code = await install(team);
    return api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
  }

  it('auth.test answers for the token’s own workspace', async () => {
    const other = String((await tokenFor('T_OTHER')).access_token);
    expect(await call(other, 'auth.test')).toMatchObject({
      ok: true,
      team_id: 'T_OTHER',
      team: 'Other Co',
      user_id: 'U_OTHER_BOT',
      bot_id: 'B_OTHER',
      url: `${slack.url}/`,
    });
    expect(await call(botToken, 'auth.test')).toMatchObject({
      ok: true,
      team_id: 'T_LOOKOUT',
      user_id: 'U_LOOKOUT_BOT',
    });
    expect(await call('xoxb-made-up', 'auth.test')).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('a token of one workspace cannot post into a channel of the other (channel_not_found)', async () => {
    const other = String((await tokenFor('T_OTHER')).access_token);
    expect(await call(other, 'chat.postMessage', { channel: 'C_GENERAL', text: 'hi' })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    expect(await call(botToken, 'chat.postMessage', { channel: 'C_OTHER_GROWTH', text: 'hi' })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    const posted = await call(other, 'chat.postMessage', { channel: 'C_OTHER_GROWTH', text: 'hello Other Co' });
    expect(posted).toMatchObject({ ok: true, channel: 'C_OTHER_GROWTH' });
    expect(slack.team('T_OTHER').lastMessage('C_OTHER_GROWTH')?.text).toBe('hello Other Co');
    expect(slack.workspace.channel('C_OTHER_GROWTH')).toBeUndefined();
  });

  it('token rotation: a 12-hour token with a refresh token; refreshing issues a new pair, the old refresh token is spent, an expired token gets token_expired', async () => {
    slack.configureOAuth({ ...app, tokenRotation: true });
    const first = await tokenFor('T_OTHER');
    expect(first).toMatchObject({
      ok: true,
      token_type: 'bot',
      expires_in: ACCESS_TOKEN_TTL_S,
      access_token: expect.stringMatching(/^xoxe\.xoxb-1-/) as unknown,
      refresh_token: expect.stringMatching(/^xoxe-1-/) as unknown,
    });
    expect(ACCESS_TOKEN_TTL_S).toBe(43_200);
    const creds = { client_id: app.clientId, client_secret: app.clientSecret, grant_type: 'refresh_token' };

    clock += 11 * 3_600_000;
    const second = await api('oauth.v2.access', { ...creds, refresh_token: String(first.refresh_token) });
    expect(second).toMatchObject({
      ok: true,
      team: { id: 'T_OTHER', name: 'Other Co' },
      expires_in: ACCESS_TOKEN_TTL_S,
    });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await api('oauth.v2.access', { ...creds, refresh_token: String(first.refresh_token) })).toEqual({
      ok: false,
      error: 'invalid_refresh_token',
    });
    // The old access token keeps working until its own 12 hours are up.
    expect((await call(String(first.access_token), 'auth.test')).ok).toBe(true);

    clock += 3_600_000;
    expect(await call(String(first.access_token), 'auth.test')).toEqual({ ok: false, error: 'token_expired' });
    expect(
      await call(String(first.access_token), 'chat.postMessage', { channel: 'C_OTHER_GENERAL', text: 'late' }),
    ).toEqual({ ok: false, error: 'token_expired' });
    expect((await call(String(second.access_token), 'auth.test')).team_id).toBe('T_OTHER');

    clock += ACCESS_TOKEN_TTL_S * 1000;
    expect(await call(String(second.access_token), 'auth.test')).toEqual({ ok: false, error: 'token_expired' });
    // An expired token is not an uninstall: the app is still installed, and its refresh token still works.
    expect(slack.oauth.installed('T_OTHER')).toBe(true);
    const third = await api('oauth.v2.access', { ...creds, refresh_token: String(second.refresh_token) });
    expect(third.ok).toBe(true);
    expect((await call(String(third.access_token), 'auth.test')).team_id).toBe('T_OTHER');
  });

  it('without token rotation a refresh grant is refused (invalid_refresh_token), and an unknown grant_type too', async () => {
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    expect(await api('oauth.v2.access', { ...creds, grant_type: 'refresh_token', refresh_token: 'xoxe-1-x' })).toEqual({
      ok: false,
      error: 'invalid_refresh_token',
    });
    expect(await api('oauth.v2.access', { ...creds, grant_type: 'password' })).toEqual({
      ok: false,
      error: 'invalid_grant_type',
    });
  });
});

describe('uninstall', () => {
  it('revokes the workspace’s tokens and sends tokens_revoked and app_uninstalled, signed, with the team', async () => {
    const code = await install('T_OTHER');
    const granted = await api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
    const token = String(granted.access_token);
    expect((await call(token, 'auth.test')).ok).toBe(true);

    const deliveries = await slack.uninstall('T_OTHER');
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(events.map((e) => e.signed)).toEqual([true, true]);
    const bodies = events.map((e) => e.body);
    expect(bodies.map((b) => (b.event as { type: string }).type)).toEqual(['tokens_revoked', 'app_uninstalled']);
    for (const b of bodies)
      expect(b).toMatchObject({ type: 'event_callback', team_id: 'T_OTHER', api_app_id: 'A_LOOKOUT' });
    expect(bodies[0]?.event).toMatchObject({ type: 'tokens_revoked', tokens: { bot: ['U_OTHER_BOT'] } });

    expect(await call(token, 'auth.test')).toEqual({ ok: false, error: 'token_revoked' });
    expect(await call(token, 'chat.postMessage', { channel: 'C_OTHER_GENERAL', text: 'x' })).toEqual({
      ok: false,
      error: 'token_revoked',
    });
    // Workspace one is untouched.
    expect((await call(botToken, 'auth.test')).ok).toBe(true);
    expect(slack.oauth.installed('T_OTHER')).toBe(false);

    // Installing again gives a working token.
    const again = await api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code: await install('T_OTHER'),
      redirect_uri: redirectUri,
    });
    expect((await call(String(again.access_token), 'auth.test')).team_id).toBe('T_OTHER');
  });
});

describe('the workspace page', () => {
  async function ui(method: 'GET' | 'POST', path: string, body?: unknown) {
    const res = await fetch(new URL(path, slack.url), {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('switches workspace with ?team=, workspace one staying the default', async () => {
    const one = await ui('GET', '/ui/workspace');
    expect(one.body).toMatchObject({ ok: true, team: { id: 'T_LOOKOUT' }, default_user: 'U_ALICE', installed: true });
    expect(one.body.teams).toEqual([
      { id: 'T_LOOKOUT', name: 'Lookout Sandbox', domain: 'lookout-sandbox', default: true },
      { id: 'T_OTHER', name: 'Other Co', domain: 'other-co', default: false },
    ]);
    const other = await ui('GET', '/ui/workspace?team=T_OTHER');
    expect(other.body).toMatchObject({ team: { id: 'T_OTHER', name: 'Other Co' }, default_user: 'U_DANA' });
    expect((other.body.channels as Array<{ id: string }>).map((c) => c.id)).toEqual([
      'C_OTHER_GENERAL',
      'C_OTHER_GROWTH',
    ]);
    const state = await ui('GET', '/ui/state?team=T_OTHER&channel=growth');
    expect(state.body).toMatchObject({ ok: true, user: 'U_DANA', channel: { id: 'C_OTHER_GROWTH' } });
    expect(await ui('GET', '/ui/workspace?team=T_NOPE')).toMatchObject({
      status: 400,
      body: { ok: false, error: 'team_not_found' },
    });
  });

  it('"Remove app" revokes the workspace’s tokens and tells the app; a second press is refused', async () => {
    const code = await install('T_OTHER');
    const granted = await api('oauth.v2.access', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
    expect((await ui('GET', '/ui/workspace?team=T_OTHER')).body.installed).toBe(true);
    expect((await ui('POST', '/ui/remove-app?team=T_OTHER', {})).body).toEqual({
      ok: true,
      removed: true,
      team: 'T_OTHER',
    });
    expect(await call(String(granted.access_token), 'auth.test')).toEqual({ ok: false, error: 'token_revoked' });
    await expect
      .poll(() => events.map((e) => (e.body.event as { type: string }).type))
      .toEqual(['tokens_revoked', 'app_uninstalled']);
    expect((await ui('GET', '/ui/workspace?team=T_OTHER')).body.installed).toBe(false);
    expect(await ui('POST', '/ui/remove-app?team=T_OTHER', {})).toMatchObject({
      status: 400,
      body: { ok: false, error: 'not_installed' },
    });
    // Slack sends an app nothing from a workspace it is not in: the page says why.
    expect(
      await ui('POST', '/ui/command?team=T_OTHER', { channel: 'general', user: 'dana', text: '/traffic' }),
    ).toEqual({
      status: 400,
      body: {
        ok: false,
        error: 'unknown_command',
        detail: '/traffic is not a valid command: Lookout is not installed in Other Co.',
      },
    });
    expect(await ui('POST', '/ui/home-open?team=T_OTHER', { user: 'dana' })).toMatchObject({
      status: 400,
      body: { error: 'not_installed' },
    });
    expect((await call(botToken, 'auth.test')).ok).toBe(true);
  });
});

describe('workspace one without the app at the start (installed: false)', () => {
  it('has no working bot token and the bot in no channel, until the app is installed through OAuth', async () => {
    const bare = await startOfflineSlack({ signingSecret, botToken, oauth: app, rateLimit: false, installed: false });
    try {
      expect(bare.oauth.installed('T_LOOKOUT')).toBe(false);
      const auth = await fetch(`${bare.apiUrl}auth.test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${botToken}` },
      });
      expect(await auth.json()).toEqual({ ok: false, error: 'invalid_auth' });
      expect([...bare.workspace.channels.values()].filter((c) => c.is_member)).toEqual([]);
      const page = (await (await fetch(`${bare.url}/ui/workspace`)).json()) as { installed: boolean };
      expect(page.installed).toBe(false);
    } finally {
      await bare.close();
    }
  });
});
