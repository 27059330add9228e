/**
 * Workspace isolation over /mcp: two workspaces, each connected to its own demo account (their
 * sites and figures differ), asked through the SDK's Client, signed as Slack signs and with each
 * person's token. Each answer is its own workspace's account's figures, as the demo API gives
 * them; a token's person is the token's, whatever `_meta.slack` names; a workspace Lookout is not
 * installed in runs nothing; one workspace's watches and digests are never shown or explained to
 * the other; the rows and log lines a call writes name the caller's workspace only.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import type { OpenDbOptions } from '../../../src/platform/store/db.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import { connect, distributedSandbox, install, quiet, run, type DistributedBox } from '../../support/distributed.js';

const A = { team: 'T_LOOKOUT', user: 'U_ALICE', channel: 'C_MARKETING' };
const B = { team: 'T_OTHER', user: 'U_DANA', channel: 'C_OTHER_GENERAL' };
const NOWHERE = { team: 'T_NOWHERE', user: 'U_ZED' };
const DAY = 86_400_000;

type Person = { team: string; user: string };
type Json = Record<string, unknown>;
type Report = { rows: Json[]; totals: Record<string, number>; period: { startDate: string; endDate: string } };
type Trend = { current: { values: number[]; total: number; startDate: string; endDate: string } };
type Setup = { digests: { id: number; channelId: string }[]; watches: { id: number; channelId: string }[] };

/** A fetch that signs each POST body as Slack does. */
function signedAs(secret: string): typeof fetch {
  return (url, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(url, init);
    const ts = Math.floor(Date.now() / 1000);
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
const meta = (who: Person) => ({ slack: { user_id: who.user, team_id: who.team } });

if (!TEST_DATABASE_URL) console.warn('/mcp isolation on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`/mcp workspace isolation [${kind}]`, () => {
    const schema = `t_mcpiso_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: DistributedBox;
    let slackbot: Client;
    const clients: Client[] = [];
    const agents: Record<string, Client> = {};
    const apis: Record<string, AnalyticsApi> = {};
    const ids = { watch: 0, digest: 0, otherWatch: 0 };

    const client = async (options: { fetch?: typeof fetch; token?: string }): Promise<Client> => {
      const c = new Client({ name: 'lookout-test', version: '1' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${box.lookout.base}/mcp`), {
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
        }),
      );
      clients.push(c);
      return c;
    };

    /**
     * One call, and the log lines it wrote: its 'agent tool call' line, and every line of the
     * tool's own (its child logger names the tool).
     */
    async function call(c: Client, name: string, args: Json, asks?: Person) {
      const from = box.logs.length;
      const result = (await c.callTool({
        name,
        arguments: args,
        ...(asks ? { _meta: meta(asks) } : {}),
      })) as CallToolResult;
      const lines = box.logs.slice(from).map((l) => JSON.parse(l) as Json);
      const logged = lines.filter((l) => l.msg === 'agent tool call');
      expect(logged, `one 'agent tool call' line for ${name}`).toHaveLength(1);
      return { result, logged: logged[0]!, toolLines: lines.filter((l) => l.tool === name) };
    }

    /** A call answered for `who`: no error, logged for `who` only. */
    async function answered(c: Client, name: string, args: Json, who: Person, asks?: Person) {
      const { result, logged, toolLines } = await call(c, name, args, asks);
      expect(result.isError, text(result)).toBeFalsy();
      expect(logged).toMatchObject({ tool: name, team: who.team, user: who.user, outcome: 'ok' });
      for (const line of toolLines) expect(line.team, JSON.stringify(line)).toBe(who.team);
      return result;
    }

    /** The same call signed by Slack for `who` and with `who`'s token: one answer. */
    async function bothWays(name: string, args: Json, who: Person) {
      const signed = await answered(slackbot, name, args, who, who);
      const token = await answered(agents[who.team]!, name, args, who);
      expect(token.structuredContent).toEqual(signed.structuredContent);
      return signed.structuredContent as Json;
    }

    /** Every row of every table that names a workspace, of `team`, as text. */
    async function rowsOf(team: string): Promise<string> {
      const db = box.lookout.store.db;
      const { rows: tables } = await db.query<{ table_name: string }>(
        `SELECT DISTINCT table_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = 'team_id' ORDER BY table_name`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['watches', 'digests', 'agent_tokens']));
      const out: Json = {};
      for (const { table_name } of tables) {
        const { rows } = await db.query(`SELECT * FROM ${table_name} WHERE team_id = $1`, [team]);
        out[table_name] = rows.map((r) => JSON.stringify(r)).sort();
      }
      return JSON.stringify(out);
    }

    /** The demo account's own page of a report, sorted by visits, and its sum. */
    async function demoPages(team: string, period: { startDate: string; endDate: string }, top: number) {
      const rows = await apis[team]!.report('pages', {
        startDate: period.startDate,
        endDate: period.endDate,
        page: 1,
        limit: top,
        sort: { key: 'total', value: -1 },
      });
      return rows.map((r) => [(r as Json).full_url, (r as Json).total]);
    }

    /** The demo account's own count of a day's visits. */
    async function demoVisitsOn(team: string, date: string): Promise<number> {
      let n = 0;
      for (let page = 1; ; page++) {
        const visits = await apis[team]!.visits({ startDate: date, endDate: date, page, limit: 1000 });
        n += visits.length;
        if (visits.length < 1000) return n;
      }
    }

    beforeAll(async () => {
      box = await distributedSandbox({ store, scheduler: false });
      for (const who of [A, B]) {
        expect((await install(box, who.team, who.user)).status).toBe(200);
        const account = box.lookout.accounts.find((a) => a.teamId === who.team)!;
        const { outcome } = await connect(box.slack.team(who.team), who.user, account.baseUrl, account.apiKey);
        expect(outcome).toBe('connected');
        apis[who.team] = new AnalyticsApi({ baseUrl: account.baseUrl, apiKey: account.apiKey });
        const { token } = await box.lookout.features.agents.tokens.create(
          who.team,
          who.user,
          'agent',
          90 * DAY,
          new Date(),
        );
        agents[who.team] = await client({ token });
      }
      const [one, two] = box.lookout.accounts.filter((a) => a.teamId === A.team || a.teamId === B.team);
      expect(one!.apiKey).not.toBe(two!.apiKey);
      // A's watch and digest in #marketing; B's own watch, so that B's setup has something.
      const slackOfA = box.slack.team(A.team);
      ids.watch = Number(/#(\d+)/.exec(await run(slackOfA, A.channel, A.user, 'watch visits above 1 every day'))?.[1]);
      await run(slackOfA, A.channel, A.user, 'digest add #marketing daily 09:00 sources');
      const { rows } = await box.lookout.store.db.query<{ id: string | number }>(
        "SELECT id FROM digests WHERE team_id = 'T_LOOKOUT'",
      );
      expect(rows).toHaveLength(1);
      ids.digest = Number(rows[0]!.id);
      const said = await run(box.slack.team(B.team), B.channel, B.user, 'watch visits above 3 every day');
      ids.otherWatch = Number(/#(\d+)/.exec(said)?.[1]);
      expect(ids.watch).toBeGreaterThan(0);
      expect(ids.otherWatch).toBeGreaterThan(0);
      await quiet(box);
      slackbot = await client({ fetch: signedAs(box.secrets.signingSecret) });
    }, 90_000);

    afterAll(async () => {
      for (const c of clients) await c.close();
      for (const api of Object.values(apis)) await api.close();
      await box?.stop();
      await dropSchemas(schema);
    });

    it('report: each workspace’s answer is its own demo account’s figures, signed or with its token', async () => {
      const args = { report: 'pages', range: 'last7d', sort: 'visits', direction: 'desc', top: 5 };
      const shown: Record<string, unknown[][]> = {};
      for (const who of [A, B]) {
        const before = await rowsOf(who === A ? B.team : A.team);
        const s = (await bothWays('report', args, who)) as Report;
        expect(await rowsOf(who === A ? B.team : A.team), `${who.team}'s report wrote another workspace's rows`).toBe(
          before,
        );
        const demo = await demoPages(who.team, s.period, 5);
        expect(demo.length).toBeGreaterThan(0);
        shown[who.team] = s.rows.map((r) => [r.full_url, r.total]);
        expect(shown[who.team]).toEqual(demo);
        expect(s.totals.total).toBe(demo.reduce((n, [, total]) => n + Number(total), 0));
      }
      expect(shown[A.team]).not.toEqual(shown[B.team]);
      const urls = (team: string) => shown[team]!.map(([url]) => String(url));
      for (const url of urls(A.team)) expect(urls(B.team)).not.toContain(url);
    });

    it('trend: each workspace’s days are its own demo account’s visits, and the two differ', async () => {
      const seen: Record<string, Trend['current']> = {};
      for (const who of [A, B]) {
        const s = (await bothWays('trend', { range: 'last7d' }, who)) as Trend;
        expect(s.current.values).toHaveLength(7);
        expect(s.current.values.at(-1)).toBe(await demoVisitsOn(who.team, s.current.endDate));
        expect(s.current.values.at(-2)).toBe(
          await demoVisitsOn(who.team, new Date(Date.parse(s.current.endDate) - DAY).toISOString().slice(0, 10)),
        );
        seen[who.team] = s.current;
      }
      expect(seen[A.team]!.values).not.toEqual(seen[B.team]!.values);
    });

    it('A’s token answers as A’s person whatever _meta.slack names, never with B’s figures', async () => {
      const args = { report: 'pages', range: 'last7d', sort: 'visits', direction: 'desc', top: 5 };
      const own = (await answered(slackbot, 'report', args, A, A)).structuredContent as Report;
      const others = (await answered(slackbot, 'report', args, B, B)).structuredContent as Report;
      const before = await rowsOf(B.team);
      for (const asks of [B, { team: B.team, user: A.user }, NOWHERE]) {
        const answer = await answered(agents[A.team]!, 'report', args, A, asks);
        expect(answer.structuredContent).toEqual(own);
        expect(answer.structuredContent).not.toEqual(others);
        expect(answer._meta).toBeUndefined();
      }
      const setup = (await answered(agents[A.team]!, 'setup', {}, A, B)).structuredContent as Setup;
      expect(setup.watches.map((w) => w.id)).toEqual([ids.watch]);
      expect(await rowsOf(B.team)).toBe(before);
      // And B's the other way round.
      const mirrored = await answered(agents[B.team]!, 'report', args, B, A);
      expect(mirrored.structuredContent).toEqual(others);
    });

    it('a signed call is answered for the workspace it names; one Lookout is not installed in runs nothing', async () => {
      const before = { a: await rowsOf(A.team), b: await rowsOf(B.team) };
      const args = { report: 'pages', range: 'last7d', sort: 'visits', direction: 'desc', top: 3 };
      const forB = (await answered(slackbot, 'report', args, B, B)).structuredContent as Report;
      expect(forB.rows.map((r) => [r.full_url, r.total])).toEqual(await demoPages(B.team, forB.period, 3));
      for (const tool of ['report', 'trend', 'setup'] as const) {
        const { result, logged, toolLines } = await call(slackbot, tool, tool === 'setup' ? {} : args, NOWHERE);
        expect(result.isError).toBe(true);
        expect(text(result)).toContain('not installed in this workspace');
        expect(result.structuredContent).toBeUndefined();
        expect(logged).toMatchObject({ team: NOWHERE.team, outcome: 'refused', apiRequests: 0 });
        expect(toolLines.filter((l) => l.msg !== 'agent tool call')).toEqual([]);
      }
      expect(Object.values(JSON.parse(await rowsOf(NOWHERE.team)) as Json).flat()).toEqual([]);
      expect(await rowsOf(A.team)).toBe(before.a);
    });

    it('why_moved of A’s watch, asked by B’s people, is refused and tells nothing of it', async () => {
      const before = await rowsOf(A.team);
      const attempts = [
        () => call(slackbot, 'why_moved', { watch: ids.watch }, B),
        () => call(agents[B.team]!, 'why_moved', { watch: ids.watch }),
        () => call(agents[B.team]!, 'why_moved', { watch: ids.watch }, A),
        // The same user id in the other workspace is someone else.
        () => call(slackbot, 'why_moved', { watch: ids.watch }, { team: B.team, user: A.user }),
      ];
      for (const attempt of attempts) {
        const { result, logged } = await attempt();
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(`There is no watch #${ids.watch}. See /traffic watch list.`);
        expect(result.structuredContent).toBeUndefined();
        expect(logged).toMatchObject({ team: B.team, outcome: 'refused' });
      }
      expect(await rowsOf(A.team)).toBe(before);
      // A's own person is told of it (it has not alerted yet).
      const { result } = await call(slackbot, 'why_moved', { watch: ids.watch }, A);
      expect(text(result)).toMatch(new RegExp(`Watch #${ids.watch} has not alerted yet`));
    });

    it('setup for B’s people lists none of A’s watches or digests; A’s lists its own', async () => {
      const a = (await bothWays('setup', {}, A)) as Setup;
      expect(a.watches.map((w) => w.id)).toEqual([ids.watch]);
      expect(a.digests.map((d) => d.id)).toEqual([ids.digest]);
      const before = await rowsOf(A.team);
      const b = (await bothWays('setup', {}, B)) as Setup;
      expect(b.watches.map((w) => w.id)).toEqual([ids.otherWatch]);
      expect(b.digests).toEqual([]);
      const sameId = (
        await answered(slackbot, 'setup', {}, { team: B.team, user: A.user }, { team: B.team, user: A.user })
      ).structuredContent as Setup;
      for (const shown of [b, sameId]) {
        expect(shown.watches.map((w) => w.id)).not.toContain(ids.watch);
        expect(shown.digests.map((d) => d.id)).not.toContain(ids.digest);
        expect(JSON.stringify(shown)).not.toMatch(/C_MARKETING|T_LOOKOUT|above 1|sources/);
      }
      expect(await rowsOf(A.team)).toBe(before);
    });

    it.runIf(kind === 'postgres')('the per-person quota counts each person under their own workspace', async () => {
      const { rows } = await box.lookout.store.db.query<{ key: string }>('SELECT key FROM rate_limits ORDER BY key');
      const keys = rows.map((r) => r.key);
      expect(keys).toEqual(expect.arrayContaining([`user:${A.team}:${A.user}`, `user:${B.team}:${B.user}`]));
      // A's token named B's person in _meta: never counted as B's, nor as A's user id in B.
      expect(keys).not.toContain(`user:${B.team}:${A.user}`);
      expect(keys.filter((k) => k.includes(NOWHERE.team))).toEqual([]);
      for (const key of keys) expect([`user:${A.team}:${A.user}`, `user:${B.team}:${B.user}`]).toContain(key);
    });
  });
}
