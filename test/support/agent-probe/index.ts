import { z } from 'zod';
import type { LookoutFeature } from '../../../src/context.js';
import { AgentRefusal, type AgentTool } from '../../../src/platform/feature.js';

const TOOLS: AgentTool[] = [
  {
    name: 'probe_account',
    title: 'Probe account',
    description: 'Who asks, and the analytics account of their workspace.',
    input: { word: z.string().describe('Any word, echoed') },
    output: { word: z.string(), team: z.string(), user: z.string(), via: z.string(), account: z.string() },
    async run(args, caller) {
      const tenant = await caller.tenant();
      const word = String(args.word);
      await tenant.api.report('countries', { startDate: '2026-11-01', endDate: '2026-11-01', limit: 1 });
      return {
        text: `${word}: ${caller.user} in ${caller.team}`,
        structured: { word, team: caller.team, user: caller.user, via: caller.via, account: tenant.account },
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `*${word}* for <@${caller.user}>` } }],
      };
    },
  },
  {
    name: 'probe_fail',
    title: 'Probe failure',
    description: 'Always fails inside.',
    input: {},
    output: { never: z.string() },
    run: () => Promise.reject(new Error('connection to db-internal:5432 lost (password hunter2)')),
  },
  {
    name: 'probe_refuse',
    title: 'Probe refusal',
    description: 'Always refuses.',
    input: {},
    output: { never: z.string() },
    run: () => Promise.reject(new AgentRefusal('not allowed: ask a workspace admin')),
  },
];

/**
 * A feature giving agents two tiny tools (until the real ones are merged): `probe_account` names
 * the caller and their workspace's analytics account, with a block for Slackbot; `probe_fail`
 * throws, with internals in its message that must not reach the agent. `probe_refuse` refuses.
 */
export const agentProbe: LookoutFeature<'agentProbe'> = {
  name: 'agentProbe',
  plug: () => ({ gives: undefined, tools: TOOLS }),
};
