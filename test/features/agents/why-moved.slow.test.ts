import { describe, expect, it } from 'vitest';
import { HOUR, spikeWorld } from '../../support/spike-world.js';
import { captureLogs } from '../../support/log-capture.js';
import { mrkdwnText, watchIdOf } from '../../support/sandbox.js';
import { z } from 'zod';
import { AgentRefusal, type AgentAnswer, type AgentCaller } from '../../../src/platform/feature.js';

/**
 * `why_moved` for the demo's spike (the setup of watches/explained-alert.slow.test.ts): the
 * same movers and verdict as the watch's alert, and for the hour named.
 *
 * "Is this spike real?" end to end: the demo produces a human spike from a new source and a
 * scraper wave on one page, each in an hour after its data ends (so the hour holds only what
 * is produced), the threat scan judges the hour's visitors, the watch evaluates, and its alert
 * is explained in place. The figures are checked against the demo API's own counts.
 */
const w = spikeWorld();

const caller = (user: string): AgentCaller => ({
  team: 'T_LOOKOUT',
  user,
  via: 'token',
  tenant: () => w.app.tenants.of('T_LOOKOUT'),
  log: captureLogs('warn').logger,
});

async function whyMoved(args: Record<string, unknown>, user = 'U_ALICE'): Promise<AgentAnswer> {
  const tool = w.app.commands.tools.find((t) => t.name === 'why_moved')!;
  const answer = await tool.run(z.object(tool.input).parse(args), caller(user));
  z.object(tool.output).strict().parse(answer.structured);
  return answer;
}

type Structured = {
  verdict: string;
  movers: { label: string; change: number; isNew: boolean }[];
  period: { label: string };
};

describe('why_moved explains the demo’s spike as the watch’s alert does', () => {
  it('a watch’s latest alert: the same movers and verdict; the hour named: the new source and the verdict', async () => {
    w.slack.workspace.setMember('C_MARKETING', 'U_BOB', false);
    const h = w.hour();
    w.clock = h.getTime() - HOUR;
    const id = watchIdOf(await w.command('C_MARKETING', 'watch visits spike every hour'));
    const spike = w.demo.spike({ kind: 'human', hour: h, visits: 150 });
    await w.evaluate(h);
    const alert = await w.explained('C_MARKETING', id);
    const said = mrkdwnText(alert);

    const answer = await whyMoved({ watch: id });
    const s = answer.structured as Structured;
    const watch = (await w.app.features.watches.service.find('T_LOOKOUT', id))!;
    expect(s.verdict).toBe(watch.explanation!.verdict);
    expect(said).toContain(`Who moved it:* ${s.verdict}`);
    expect(s.movers.find((m) => m.label === spike.source.name)).toMatchObject({ change: 150, isNew: true });
    for (const m of s.movers) expect(said).toContain(m.label);
    expect(answer.text).toContain(`${spike.source.name} +150 (new`);
    expect(mrkdwnText({ blocks: answer.blocks! })).toContain(`${spike.source.name} +150 (new`);

    const named = await whyMoved({ date: h.toISOString().slice(0, 10), hour: h.getUTCHours(), report: 'sources' });
    const n = named.structured as Structured;
    expect(n.period.label).toMatch(/\(UTC\)$/);
    expect(n.movers[0]).toMatchObject({ label: spike.source.name, change: 150, isNew: true });
    expect(n.verdict).toBe('mostly people');

    // Bob is not in #marketing: its watch is refused him.
    const refused = await whyMoved({ watch: id }, 'U_BOB').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AgentRefusal);
  }, 60_000);
});
