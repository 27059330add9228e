/**
 * An org-wide install (Enterprise Grid) at the offline Slack, as Slack documents it
 * (https://api.slack.com/enterprise/apps/changes-install, https://api.slack.com/enterprise/apps/reference):
 * the organisation picked on the authorise page, `oauth.v2.access` answering for it, the token acting
 * only in workspaces an Org Admin added the app to, and the payloads of those workspaces saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfflineSlack, type OfflineSlack } from '../../src/slack/index.js';

const app = {
  clientId: '1111.2222',
  clientSecret: 'org-test-client-secret',
  name: 'Lookout',
  redirectUris: ['http://127.0.0.1:9/slack/oauth_redirect'],
};
const GRID = { id: 'E_GRID', name: 'Grid Org' };

let slack: OfflineSlack;

beforeAll(async () => {
  slack = await startOfflineSlack({
    signingSecret: 'org-test-signing-secret',
    botToken: 'xoxb-org-test',
    oauth: app,
    rateLimit: false,
    // Nothing listens there: the command's payload is what is looked at.
    appUrl: 'http://127.0.0.1:9/slack/events',
    workspaces: ['EAST', 'WEST'].map((w) => ({
      team: { id: `T_GRID_${w}`, name: `Grid ${w}`, domain: `grid-${w.toLowerCase()}`, enterprise: GRID },
      channels: [{ id: `C_${w}`, name: w.toLowerCase() }],
      users: [{ id: 'W_ORG_ADMIN', name: 'olga' }],
    })),
  });
});
afterAll(() => slack.close());

async function api(method: string, fields: Record<string, string>, authorization: string) {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: new URLSearchParams(fields).toString(),
  });
  return (await res.json()) as Record<string, unknown> & { ok: boolean; error?: string };
}

describe('an org-wide install', () => {
  let token = '';

  it('the authorise page offers the organisation; Allow for it, and oauth.v2.access answers with team null, the enterprise and is_enterprise_install', async () => {
    const url = new URL('/oauth/v2/authorize', slack.url);
    for (const [k, v] of Object.entries({
      client_id: app.clientId,
      scope: 'commands',
      redirect_uri: app.redirectUris[0]!,
      team: GRID.id,
    }))
      url.searchParams.set(k, v);
    const page = await (await fetch(url)).text();
    expect(page).toContain('the <strong>Grid Org</strong> Slack organisation');
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
    expect(field('team')).toBe(GRID.id);
    const decided = await fetch(new URL('/oauth/v2/authorize', slack.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        request: field('request'),
        user: 'W_ORG_ADMIN',
        team: GRID.id,
        decision: 'allow',
      }).toString(),
      redirect: 'manual',
    });
    const code = new URL(decided.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const basic = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
    const answer = await api('oauth.v2.access', { code, redirect_uri: app.redirectUris[0]! }, basic);
    expect(answer).toMatchObject({
      ok: true,
      authed_user: { id: 'W_ORG_ADMIN' },
      team: null,
      enterprise: GRID,
      is_enterprise_install: true,
    });
    token = String(answer.access_token);
    expect(await api('auth.test', {}, `Bearer ${token}`)).toMatchObject({
      ok: true,
      enterprise_id: GRID.id,
      is_enterprise_install: true,
    });
  });

  it('the token acts only in a workspace the Org Admin added the app to, named by team_id', async () => {
    const post = (fields: Record<string, string>) => api('chat.postMessage', fields, `Bearer ${token}`);
    expect(await post({ channel: 'C_EAST', text: 'hi', team_id: 'T_GRID_EAST' })).toMatchObject({
      ok: false,
      error: 'team_access_not_granted',
    });
    slack.addToWorkspace('T_GRID_EAST');
    expect(await post({ channel: 'C_EAST', text: 'hi' })).toMatchObject({ ok: false, error: 'missing_argument' });
    expect(await post({ channel: 'C_EAST', text: 'hi', team_id: 'T_GRID_EAST' })).toMatchObject({ ok: true });
    expect(
      slack
        .team('T_GRID_EAST')
        .messages('C_EAST')
        .map((m) => m.text),
    ).toEqual(['hi']);
    expect(await post({ channel: 'C_GENERAL', text: 'hi', team_id: 'T_LOOKOUT' })).toMatchObject({
      ok: false,
      error: 'team_access_not_granted',
    });
  });

  it('a command from a workspace it was added to names the organisation and says is_enterprise_install', async () => {
    const east = slack.team('T_GRID_EAST');
    const sent = await east.slash('C_EAST', 'W_ORG_ADMIN', 'sources');
    const fields = sent.payload;
    expect(
      Object.fromEntries(
        ['team_id', 'enterprise_id', 'enterprise_name', 'is_enterprise_install'].map((k) => [k, fields[k]]),
      ),
    ).toEqual({
      team_id: 'T_GRID_EAST',
      enterprise_id: GRID.id,
      enterprise_name: GRID.name,
      is_enterprise_install: 'true',
    });
  });
});
