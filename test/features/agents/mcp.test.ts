/**
 * /mcp as an agent meets it: the SDK's own Client over Streamable HTTP against the running app
 * (distributed: installed by OAuth, one workspace connected to analytics, one not). In through
 * a body signed as Slack signs it, or a person's agent token; every other way is refused with
 * a 401 and nothing run. A refusal inside a call reaches the agent in its own words; a failure
 * reaches it as a generic text and is logged. Each call is counted in /metrics.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../../src/features/agents/mcp/route.js';
import { FEATURES } from '../../../src/features/index.js';
import type { OpenDbOptions } from '../../../src/platform/store/db.js';
import { agentProbe } from '../../support/agent-probe/index.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import { connect, distributedSandbox, install, type DistributedBox } from '../../support/distributed.js';

const ONE = { team: 'T_LOOKOUT', user: 'U_ALICE' };
const OTHER = { team: 'T_OTHER', user: 'U_DANA' };
const DAY = 86_400_000;

type Fetch = typeof fetch;

/** A fetch that signs each POST body as Slack does, with `secret` at the timestamp `at()` (seconds). */
function signedAs(secret: string, at = () => Math.floor(Date.now() / 1000)): Fetch {
  return (url, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(url, init);
    const ts = at();
    const headers = new Headers(init.headers);
    headers.set('x-slack-request-timestamp', String(ts));
    headers.set(
      'x-slack-signature',
      `v0=${createHmac('sha256', secret).update(`v0:${ts}:${init.body}`).digest('hex')}`,
    );
    return fetch(url, { ...init, headers });
  };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

if (!TEST_DATABASE_URL) console.warn('/mcp on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`/mcp [${kind}]`, () => {
    const schema = `t_mcp_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: DistributedBox;
    let url: URL;
    const clients: Client[] = [];

    const client = async (options: { fetch?: Fetch; token?: string }): Promise<Client> => {
      const c = new Client({ name: 'lookout-test', version: '1' });
      await c.connect(
        new StreamableHTTPClientTransport(url, {
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
        }),
      );
      clients.push(c);
      return c;
    };
    const slackbot = () => client({ fetch: signedAs(box.secrets.signingSecret) });
    const asks = (who: { team: string; user: string }) => ({ slack: { user_id: who.user, team_id: who.team } });
    const call = async (c: Client, name: string, args: Record<string, unknown>, _meta?: Record<string, unknown>) =>
      (await c.callTool({ name, arguments: args, ...(_meta ? { _meta } : {}) })) as CallToolResult;
    const tokens = () => box.lookout.features.agents.tokens;
    const metrics = async () => (await fetch(`${box.lookout.ops.url}/metrics`)).text();
    /** The 401 an SDK client meets on its first request (initialize). */
    const refused = (attempt: Promise<unknown>) => expect(attempt).rejects.toThrow(/401|Unauthorized/);

    beforeAll(async () => {
      box = await distributedSandbox({ store, scheduler: false, features: [...FEATURES, agentProbe] });
      url = new URL(`${box.lookout.base}/mcp`);
      for (const who of [ONE, OTHER]) expect((await install(box, who.team, who.user)).status).toBe(200);
      const account = box.lookout.accounts.find((a) => a.teamId === ONE.team)!;
      const { outcome } = await connect(box.slack.team(ONE.team), ONE.user, account.baseUrl, account.apiKey);
      expect(outcome).toBe('connected');
    }, 60_000);

    afterAll(async () => {
      for (const c of clients) await c.close();
      await box?.stop();
      await dropSchemas(schema);
    });

    it('lists every tool, read-only and with Block Kit for Slackbot', async () => {
      const { tools } = await (await slackbot()).listTools();
      const probe = tools.find((t) => t.name === 'probe_account');
      expect(probe).toMatchObject({
        title: 'Probe account',
        description: 'Who asks, and the analytics account of their workspace.',
        annotations: { readOnlyHint: true },
        _meta: { slack: { supportsBlockKit: true } },
        inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
        outputSchema: { type: 'object' },
      });
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['probe_account', 'probe_fail', 'probe_refuse']));
    });

    it('answers a call Slack signed for the person it names, with the blocks Slackbot shows', async () => {
      const result = await call(await slackbot(), 'probe_account', { word: 'hello' }, asks(ONE));
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe('hello: U_ALICE in T_LOOKOUT');
      expect(result.structuredContent).toMatchObject({
        word: 'hello',
        team: 'T_LOOKOUT',
        user: 'U_ALICE',
        via: 'slack',
      });
      expect(result._meta).toEqual({
        slack: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hello* for <@U_ALICE>' } }] },
      });
      const logged = box.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'agent tool call');
      expect(logged).toMatchObject({
        tool: 'probe_account',
        team: 'T_LOOKOUT',
        user: 'U_ALICE',
        via: 'slack',
        outcome: 'ok',
        apiRequests: 1,
      });
      expect(logged?.ms).toEqual(expect.any(Number));
    });

    it('answers a call with a person’s token, as that person, without blocks, whatever _meta says', async () => {
      const { token } = await tokens().create(ONE.team, ONE.user, 'laptop', 90 * DAY, new Date());
      const result = await call(await client({ token }), 'probe_account', { word: 'hi' }, asks(OTHER));
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ team: 'T_LOOKOUT', user: 'U_ALICE', via: 'token' });
      expect(result._meta).toBeUndefined();
      const [listed] = await tokens().list(ONE.team, ONE.user);
      expect(listed?.lastUsedAt).toBeInstanceOf(Date);
      expect(box.logs.join('\n')).not.toContain(token);
    });

    it('refuses a request neither signed nor with a token, with a JSON-RPC body and nothing run', async () => {
      await refused(client({}));
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'probe_account', arguments: { word: 'x' }, _meta: asks(ONE) },
        }),
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
    });

    it('refuses a bad signature, a stale timestamp and a replay', async () => {
      await refused(client({ fetch: signedAs('not-the-signing-secret') }));
      await refused(client({ fetch: signedAs(box.secrets.signingSecret, () => Math.floor(Date.now() / 1000) - 600) }));
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'probe_account', arguments: { word: 'replayed' }, _meta: asks(ONE) },
      });
      const ts = Math.floor(Date.now() / 1000);
      const init: RequestInit = {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-slack-request-timestamp': String(ts),
          'x-slack-signature': `v0=${createHmac('sha256', box.secrets.signingSecret).update(`v0:${ts}:${body}`).digest('hex')}`,
        },
      };
      const first = await fetch(url, init);
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ result: { structuredContent: { word: 'replayed' } } });
      const again = await fetch(url, init);
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ error: { code: -32001 } });
      const text = await metrics();
      for (const reason of ['bad_signature', 'stale_timestamp', 'replay'])
        expect(text).toMatch(new RegExp(`lookout_requests_refused_total\\{reason="${reason}"\\} [1-9]`));
    });

    it('refuses a wrong, revoked or expired token', async () => {
      await refused(client({ token: `lka_${randomBytes(32).toString('base64url')}` }));
      await refused(client({ token: 'not-a-token' }));
      const revoked = await tokens().create(ONE.team, ONE.user, 'old', 90 * DAY, new Date());
      expect(await tokens().revoke(ONE.team, ONE.user, revoked.id)).toBe(true);
      await refused(client({ token: revoked.token }));
      const expired = await tokens().create(ONE.team, ONE.user, 'short', 1_000, new Date(Date.now() - 2_000));
      await refused(client({ token: expired.token }));
      expect(box.lookout.features.agents.ttlMs).toBe(90 * DAY);
    });

    it('tells the agent, in the platform’s words, that a workspace is not connected to analytics', async () => {
      const result = await call(await slackbot(), 'probe_account', { word: 'unconnected' }, asks(OTHER));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('not connected to an analytics account');
      expect(text(result)).toContain('App Home');
    });

    it('gives a refusal in its own words, and a failure as a generic text that is logged', async () => {
      const bot = await slackbot();
      const refusal = await call(bot, 'probe_refuse', {}, asks(ONE));
      expect(refusal.isError).toBe(true);
      expect(text(refusal)).toBe('not allowed: ask a workspace admin');
      const failure = await call(bot, 'probe_fail', {}, asks(ONE));
      expect(failure.isError).toBe(true);
      expect(text(failure)).toContain('Lookout could not answer this just now');
      expect(text(failure)).not.toMatch(/hunter2|db-internal/);
      expect(box.logs.some((l) => l.includes('an agent tool failed') && l.includes('db-internal'))).toBe(true);
      const anonymous = await call(bot, 'probe_account', { word: 'anonymous' });
      expect(anonymous.isError).toBe(true);
      expect(text(anonymous)).toContain('could not tell who is asking');
    });

    it('refuses a workspace Lookout was removed from: its tokens, and Slack’s calls for it', async () => {
      const { token } = await tokens().create(OTHER.team, OTHER.user, 'cli', 90 * DAY, new Date());
      expect((await call(await client({ token }), 'probe_account', { word: 'x' })).isError).toBe(true);
      await box.lookout.features.workspace.service.left(OTHER.team, 'app_uninstalled');
      await refused(client({ token }));
      const result = await call(await slackbot(), 'probe_account', { word: 'removed' }, asks(OTHER));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('not installed in this workspace');
    });

    it('refuses a body over the limit with 413, unread', async () => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(BODY_LIMIT) }),
      });
      expect(answer.status).toBe(413);
      expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    });

    it('answers GET with 405 and Allow: POST, and counts every call by tool and outcome', async () => {
      const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      expect(await get.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      const text = await metrics();
      expect(text).toMatch(/lookout_agent_calls_total\{tool="probe_account",outcome="ok"\} 3\b/);
      expect(text).toMatch(/lookout_agent_calls_total\{tool="probe_account",outcome="refused"\} [3-9]\b/);
      expect(text).toMatch(/lookout_agent_calls_total\{tool="probe_fail",outcome="error"\} 1\b/);
      expect(text).toMatch(/lookout_agent_calls_total\{tool="probe_refuse",outcome="refused"\} 1\b/);
    });
  });
}
