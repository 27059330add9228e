/**
 * Lookout's own tools as an agent meets them: the SDK's Client over /mcp against the running
 * app (distributed, on PGlite and PostgreSQL), signed as Slack signs and with a person's
 * token. Every tool answers with its figures; the refusals a command gives are the tool
 * errors an agent reads: security details outside SECURITY_USERS, a watch in a channel the
 * person is not in, another workspace's watch, a question beyond the person's quota.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenDbOptions } from '../../../src/platform/store/db.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import { sandbox, type Sandbox } from '../../support/sandbox.js';
import { connect, distributedSandbox, install, run, type DistributedBox } from '../../support/distributed.js';

const TEAM = 'T_LOOKOUT';
const ALICE = 'U_ALICE';
const BOB = 'U_BOB';
const CAROL = 'U_CAROL';
const QUOTA = 60;

/** An MCP client whose POSTs are signed as Slack signs them. */
async function signedClient(url: string, secret: string, token?: string): Promise<Client> {
  const signed: typeof fetch = (to, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(to, init);
    const ts = Math.floor(Date.now() / 1000);
    const headers = new Headers(init.headers);
    headers.set('x-slack-request-timestamp', String(ts));
    headers.set(
      'x-slack-signature',
      `v0=${createHmac('sha256', secret).update(`v0:${ts}:${init.body}`).digest('hex')}`,
    );
    return fetch(to, { ...init, headers });
  };
  const c = new Client({ name: 'lookout-test', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : { fetch: signed }),
    }),
  );
  return c;
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`Lookout's tools over /mcp [${kind}]`, () => {
    const schema = `t_tools_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: DistributedBox;
    let slackbot: Client;
    let watchId: number;
    const clients: Client[] = [];

    const client = async (options: { sign?: boolean; token?: string }): Promise<Client> => {
      const c = await signedClient(`${box.lookout.base}/mcp`, box.secrets.signingSecret, options.token);
      clients.push(c);
      return c;
    };
    const ask = async (name: string, args: Record<string, unknown>, user = ALICE, team = TEAM, c = slackbot) =>
      (await c.callTool({
        name,
        arguments: args,
        _meta: { slack: { user_id: user, team_id: team } },
      })) as CallToolResult;

    beforeAll(async () => {
      box = await distributedSandbox({
        store,
        scheduler: false,
        settings: { SECURITY_USERS: [CAROL], USER_RATE_LIMIT: QUOTA },
      });
      for (const team of [TEAM, 'T_OTHER']) expect((await install(box, team, ALICE)).status).toBe(200);
      const account = box.lookout.accounts.find((a) => a.teamId === TEAM)!;
      expect((await connect(box.slack.team(TEAM), ALICE, account.baseUrl, account.apiKey)).outcome).toBe('connected');
      box.slack.team(TEAM).workspace.setMember('C_MARKETING', BOB, false);
      const added = await run(box.slack.team(TEAM), 'C_MARKETING', ALICE, 'watch visits above 1 every day');
      watchId = Number(/#(\d+)/.exec(added)?.[1]);
      expect(watchId).toBeGreaterThan(0);
      slackbot = await client({ sign: true });
    }, 90_000);

    afterAll(async () => {
      for (const c of clients) await c.close();
      await box?.stop();
      await dropSchemas(schema);
    });

    it('lists the five tools, read-only, each with its input and output schema', async () => {
      const { tools } = await slackbot.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['report', 'setup', 'trend', 'visitor_profile', 'why_moved']);
      for (const t of tools) {
        expect(t.annotations?.readOnlyHint).toBe(true);
        expect(t.outputSchema?.type).toBe('object');
        expect(t.description?.length).toBeGreaterThan(20);
      }
    });

    it('report: the rows and totals of a period named with its zone, and the blocks Lookout posts', async () => {
      const answer = await ask('report', { report: 'sources', range: 'last7d', top: 5 });
      expect(answer.isError).toBeFalsy();
      const figures = answer.structuredContent as { rows: unknown[]; totals: Record<string, number>; period: unknown };
      expect(figures.rows.length).toBeGreaterThan(0);
      expect(figures.rows.length).toBeLessThanOrEqual(5);
      expect(Object.values(figures.totals)[0], JSON.stringify(figures.totals)).toBeGreaterThan(0);
      expect(JSON.stringify(figures.period)).toMatch(/UTC|zone/i);
      expect((answer._meta as { slack?: { blocks?: unknown[] } }).slack?.blocks?.length).toBeGreaterThan(0);
    });

    it('trend, setup and why_moved answer with their figures', async () => {
      const trend = await ask('trend', { range: 'last7d' });
      expect(trend.isError, text(trend)).toBeFalsy();
      expect(trend.structuredContent).toBeDefined();
      const setup = await ask('setup', {});
      expect(setup.isError).toBeFalsy();
      expect(JSON.stringify(setup.structuredContent)).toContain(String(watchId));
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const why = await ask('why_moved', { date: yesterday });
      expect(why.isError, text(why)).toBeFalsy();
      expect(text(why).length).toBeGreaterThan(0);
    });

    it('visitor_profile: the visitor’s verdict and its reasons', async () => {
      const carol = await ask('visitor_profile', { visitorId: DEMO_VISITORS.attacker }, CAROL);
      expect(carol.isError, text(carol)).toBeFalsy();
      expect(carol.structuredContent).toMatchObject({ visitorId: DEMO_VISITORS.attacker });
    });

    it('why_moved of a watch: refused in a channel the person is not in, and for another workspace', async () => {
      const bob = await ask('why_moved', { watch: watchId }, BOB);
      expect(bob.isError).toBe(true);
      expect(text(bob)).toMatch(/not in|channel/i);
      const elsewhere = await ask('why_moved', { watch: watchId }, ALICE, 'T_OTHER');
      expect(elsewhere.isError).toBe(true);
      expect(text(elsewhere)).not.toContain('visits above');
    });

    it('the same answer with a person’s token as signed by Slack, without Slackbot’s blocks', async () => {
      const { token } = await box.lookout.features.agents.tokens.create(TEAM, ALICE, 'claude', 86_400_000, new Date());
      const agent = await client({ token });
      const answer = (await agent.callTool({
        name: 'report',
        arguments: { report: 'pages', range: 'last7d', top: 3 },
      })) as CallToolResult;
      const signed = await ask('report', { report: 'pages', range: 'last7d', top: 3 });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(signed.structuredContent);
      expect(answer._meta?.slack).toBeUndefined();
    });

    it('a question beyond the person’s quota is a tool error that says so, and is counted', async () => {
      const answer = await ask('trend', { range: 'last90d' }, BOB);
      expect(answer.isError).toBe(true);
      expect(text(answer)).toMatch(/one person may make \d+ in this workspace/);
      const metrics = await (await fetch(`${box.lookout.ops.url}/metrics`)).text();
      expect(metrics).toMatch(/lookout_agent_calls_total\{tool="trend",outcome="refused"\} [1-9]/);
    });
  });
}

describe('visitor_profile over /mcp where SECURITY_USERS is set (one workspace)', () => {
  let box: Sandbox & { logs: string[] };
  let c: Client;
  beforeAll(async () => {
    box = await sandbox({ settings: { SECURITY_USERS: [CAROL] } });
    c = await signedClient(`${box.lookout.requestUrl!.replace('/slack/events', '')}/mcp`, box.secrets.signingSecret);
  });
  afterAll(async () => {
    await c?.close();
    await box?.stop();
  });

  it('answers a security user, and refuses anyone else in the command’s words', async () => {
    const ask = async (user: string) =>
      (await c.callTool({
        name: 'visitor_profile',
        arguments: { visitorId: DEMO_VISITORS.attacker },
        _meta: { slack: { user_id: user, team_id: box.slack.workspace.team.id } },
      })) as CallToolResult;
    const carol = await ask(CAROL);
    expect(carol.isError, text(carol)).toBeFalsy();
    expect(JSON.stringify(carol.structuredContent)).toMatch(/Threat|Suspicious/);
    const bob = await ask(BOB);
    expect(bob.isError).toBe(true);
    expect(text(bob)).toMatch(/Security details are restricted/);
  });
});
