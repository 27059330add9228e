import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { AgentRefusal, type AgentAnswer, type AgentCaller, type AgentTool } from '../../../src/platform/feature.js';
import { agentBlocks } from '../../../src/platform/slack/kit/agent-blocks.js';
import { LIMITS } from '../../../src/platform/slack/kit/limits.js';
import { run } from '../../support/answers.js';
import { captureLogs } from '../../support/log-capture.js';
import { headerOf, sandbox, tableOf, watchIdOf, type Sandbox } from '../../support/sandbox.js';

const TEAM = 'T_LOOKOUT';
let box: Sandbox & { logs: string[] };
let api: AnalyticsApi;

beforeAll(async () => {
  box = await sandbox({ settings: { SECURITY_USERS: ['U_CAROL'] } });
  api = new AnalyticsApi({ baseUrl: box.demo!.url, apiKey: box.secrets.apiKey });
  // Bob is not in #marketing.
  box.slack.workspace.setMember('C_MARKETING', 'U_BOB', false);
});

afterAll(async () => {
  await api?.close();
  await box?.stop();
});

function tool(name: string): AgentTool {
  const found = box.lookout.commands.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

function caller(user = 'U_ALICE', team = TEAM): AgentCaller {
  return { team, user, via: 'slack', tenant: () => box.lookout.tenants.of(team), log: captureLogs('info').logger };
}

/** Calls a tool as an MCP server does: the arguments through its input schema, the figures checked against its output schema. */
async function call(name: string, args: Record<string, unknown>, who = caller()): Promise<AgentAnswer> {
  const t = tool(name);
  const answer = await t.run(z.object(t.input).parse(args), who);
  z.object(t.output).strict().parse(answer.structured);
  expect(answer.text.length).toBeGreaterThan(0);
  expect(answer.text.length).toBeLessThan(600);
  expect(answer.blocks!.length).toBeLessThanOrEqual(LIMITS.messageBlocks);
  expect(JSON.stringify(answer.blocks)).not.toMatch(/"action_id"/);
  return answer;
}

/** Blocks as shown, without the block ids the offline Slack gives blocks that had none. */
const shown = (blocks: readonly unknown[] | undefined) =>
  (blocks ?? []).map((b) => {
    const { block_id: _, ...rest } = b as Record<string, unknown>;
    return rest;
  });

async function refusal(name: string, args: Record<string, unknown>, who = caller()): Promise<string> {
  const t = tool(name);
  const error = await t.run(z.object(t.input).parse(args), who).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentRefusal);
  return (error as AgentRefusal).message;
}

describe('agent tools', () => {
  it('the five tools are given, each with descriptions for every argument', () => {
    expect(box.lookout.commands.tools.map((t) => t.name).sort()).toEqual(
      ['report', 'setup', 'trend', 'visitor_profile', 'why_moved'].sort(),
    );
    for (const t of box.lookout.commands.tools) {
      expect(t.description.length).toBeGreaterThan(20);
      for (const [key, schema] of Object.entries(t.input))
        expect((schema as { description?: string }).description, `${t.name}.${key}`).toBeTruthy();
    }
  });

  it('report: the rows and totals of the command, and the demo API’s figures, with the period and zone named', async () => {
    const answer = await call('report', { report: 'sources', range: 'last30d', top: 5 });
    const s = answer.structured as {
      rows: Record<string, unknown>[];
      totals: Record<string, number>;
      period: { startDate: string; endDate: string; zone: string; label: string };
    };
    const command = await run(box, 'sources last30d top 5');
    const table = tableOf(command).slice(1);
    expect(s.rows.map((r) => r.name)).toEqual(table.map((row) => row[0]));
    expect(s.rows.map((r) => Number(r.total_visits).toLocaleString('en-US'))).toEqual(table.map((row) => row[1]));
    expect(headerOf(command)).toBe(`Sources · ${s.period.label}`);
    expect(shown(answer.blocks)).toEqual(shown(agentBlocks(command as never)));

    const demo = await api.report('sources', {
      startDate: s.period.startDate,
      endDate: s.period.endDate,
      page: 1,
      limit: 5,
      sort: { key: 'total_visits', value: -1 },
    });
    expect(s.rows.map((r) => [r.name, r.total_visits])).toEqual(demo.map((r) => [r.name, r.total_visits]));
    const sum = demo.reduce((n, r) => n + Number(r.total_visits), 0);
    expect(s.totals.total_visits).toBe(sum);
    expect(answer.text).toContain(`${sum.toLocaleString('en-US')} visits in all`);
    expect(answer.text).toContain(`${s.period.startDate} to ${s.period.endDate}`);
    expect(answer.text).toContain(`days in ${s.period.zone}`);
  });

  it('report: filters, sort and a page as the command writes them', async () => {
    const args = {
      report: 'pages',
      range: 'last30d',
      filters: 'page~/',
      sort: 'visits',
      direction: 'asc',
      top: 3,
      page: 2,
    };
    const s = (await call('report', args)).structured as { rows: Record<string, unknown>[]; page: number };
    const first = await call('report', { ...args, page: 1, top: 6 });
    expect(s.page).toBe(2);
    expect(s.rows).toEqual((first.structured as { rows: unknown[] }).rows.slice(3, 6));
    const command = await run(box, 'pages last30d page~/ by visits asc top 6');
    expect(
      tableOf(command)
        .slice(4)
        .map((r) => r[0]),
    ).toEqual(s.rows.map((r) => tableOf(command).slice(4)[s.rows.indexOf(r)]![0]));
    expect(REPORTS.pages.columns.map((c) => c.field)).toEqual(Object.keys(s.rows[0]!));
  });

  it('report: a bad range or filter is refused with the command’s words', async () => {
    const said = await refusal('report', { report: 'sources', range: 'lastweak' });
    const command = await run(box, 'sources lastweak');
    expect(command.text).toContain(said);
    const filter = await refusal('report', { report: 'sources', filters: 'nope:x' });
    expect((await run(box, 'sources last7d nope:x')).text).toContain(filter);
  });

  it('trend: the periods, totals and change of the command, each period named with its zone', async () => {
    const answer = await call('trend', { range: 'last7d' });
    const s = answer.structured as {
      zone: string;
      labels: string[];
      current: { total: number; values: number[]; startDate: string; endDate: string };
      previous: { total: number; values: number[] };
      change: number;
      grain: string;
    };
    expect(s.grain).toBe('day');
    expect(s.current.values).toHaveLength(7);
    expect(s.labels).toHaveLength(7);
    expect(s.current.total).toBe(s.current.values.reduce((n, v) => n + v, 0));
    expect(s.change).toBe(s.current.total - s.previous.total);
    const command = await run(box, 'trend last7d');
    expect(shown(answer.blocks)).toEqual(shown(agentBlocks(command as never)));
    expect(command.text).toContain(s.current.total.toLocaleString('en-US'));
    expect(answer.text).toContain(`days in ${s.zone}`);
    // The demo API's own figures: each day's visits.
    const day = s.current.values.length - 1;
    const visits = await api.visits({
      startDate: s.current.endDate,
      endDate: s.current.endDate,
      page: 1,
      limit: 1000,
    });
    expect(s.current.values[day]).toBe(visits.length);
    expect(await refusal('trend', { range: 'lastweak' })).toMatch(/lastweak/);
  });

  it('visitor_profile: the verdict and reasons of the card, for SECURITY_USERS only', async () => {
    const answer = await call('visitor_profile', { visitorId: DEMO_VISITORS.attacker }, caller('U_CAROL'));
    const s = answer.structured as { verdict: string; reasons: { text: string }[] };
    expect(s.verdict).toBe('Threat');
    expect(s.reasons.map((r) => r.text).join(' ')).toMatch(/attacker/);
    expect(headerOf({ blocks: answer.blocks! })).toBe('Threat · high severity: visitor v_demo_attacker');
    const command = await run(box, DEMO_VISITORS.attacker, { command: '/visitor', user: 'U_CAROL' });
    expect(headerOf(command)).toBe(headerOf({ blocks: answer.blocks! }));

    const said = await refusal('visitor_profile', { visitorId: DEMO_VISITORS.attacker });
    expect(said).toMatch(/Security details are restricted/);
    expect(said).toContain('<@U_CAROL>');
    const refused = await run(box, DEMO_VISITORS.attacker, { command: '/visitor' });
    expect(refused.text).toContain('Security details are restricted');
    expect(await refusal('visitor_profile', { visitorId: 'a b' }, caller('U_CAROL'))).toMatch(/not a valid visitor id/);
  });

  it('setup and why_moved: what is in the person’s channels; a watch elsewhere or in another workspace is refused', async () => {
    const id = watchIdOf(await run(box, 'watch visits spike every hour'));
    const general = watchIdOf(await run(box, 'watch visits above 5 every day', { channel: 'C_GENERAL' }));
    expect(id).toBeGreaterThan(0);

    const alice = (await call('setup', {})).structured as { watches: { id: number; state: string }[] };
    expect(alice.watches.map((w) => w.id).sort()).toEqual([id, general].sort());
    expect(alice.watches[0]!.state).toBe('not evaluated yet');
    const bob = await call('setup', {}, caller('U_BOB'));
    expect((bob.structured as { watches: { id: number }[] }).watches.map((w) => w.id)).toEqual([general]);
    expect(bob.text).toMatch(
      /^In your channels: 1 watch \(0 alerting\), 0 digests and 0 channels with threat alerts\.$/,
    );
    expect(JSON.stringify(bob.blocks)).toContain('Watches in your channels (1)');

    expect(await refusal('why_moved', { watch: id }, caller('U_BOB'))).toBe(
      `Watch #${id} posts in a channel you are not in. Ask a member of its channel.`,
    );
    expect(await refusal('why_moved', { watch: id }, caller('U_ERIK', 'T_OTHER'))).toBe(
      `There is no watch #${id}. See /traffic watch list.`,
    );
    expect(await refusal('why_moved', { watch: id })).toMatch(/has not alerted yet/);
    expect(await refusal('why_moved', {})).toMatch(/Name a watch/);
  });

  it('why_moved: a day you name, its movers and who moved them, the period named with its zone', async () => {
    const yesterday = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const answer = await call('why_moved', { date: yesterday });
    const s = answer.structured as { period: { label: string }; verdict: string; movers: { change: number }[] };
    expect(s.period.label).toMatch(/as the analytics API counts days/);
    expect(answer.text).toContain(s.period.label);
    expect(answer.text).toMatch(/What moved/);
    expect(answer.text).toMatch(/Who moved it/);
    expect(s.verdict).toMatch(/automated|people|mixed|unknown/);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await refusal('why_moved', { date: tomorrow })).toMatch(/is not over yet/);
  });
});
