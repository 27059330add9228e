/** The `setup` agent tool: the digests, watches and threat alerts in the person's channels, as their Home shows them. */
import { z } from 'zod';
import { counted } from '../../kernel/format.js';
import { toolSchemas, type AgentCaller, type AgentTool } from '../../platform/feature.js';
import { agentBlocks } from '../../platform/slack/kit/agent-blocks.js';
import type { HomeService } from './service.js';

const schemas = toolSchemas(() => {
  const output = {
    digests: z.array(
      z.object({
        id: z.number(),
        channelId: z.string(),
        ownerId: z.string(),
        reports: z.array(z.string()),
        schedule: z.string(),
        paused: z.boolean(),
        nextRun: z.string().optional(),
        lastRun: z.string().optional(),
        attention: z.string().optional().describe('Why Slack refuses its channel'),
      }),
    ),
    watches: z.array(
      z.object({
        id: z.number(),
        channelId: z.string(),
        title: z.string(),
        state: z.string().describe('paused, not evaluated yet, ok, breaching or unknown'),
        alerts: z.string().describe('How often it alerted in the last 30 days (or since it was added), in words'),
        paused: z.boolean(),
        muted: z.boolean(),
        lastPeriod: z.string().optional(),
        alertingSince: z.string().optional().describe('ISO time'),
      }),
    ),
    threatAlerts: z.array(z.object({ channelId: z.string(), subscription: z.string() })),
    latestAlerts: z
      .array(z.object({ channelId: z.string(), visitorId: z.string(), text: z.string(), muted: z.boolean() }))
      .optional()
      .describe('For people allowed security details'),
  };
  return { input: {}, output };
});

const HEADINGS: Readonly<Record<string, string>> = { 'Your digests': 'Digests', 'Your watches': 'Watches' };

export function setupTool(home: HomeService): AgentTool {
  return {
    name: 'setup',
    title: 'Setup',
    description: "Watches, digests and threat alerts in the person's channels, with their state.",
    get input() {
      return schemas.input;
    },
    get output() {
      return schemas.output;
    },
    async run(_args, caller: AgentCaller) {
      const setup = await home.setup(await caller.tenant(), caller.user);
      const digests = setup.digests.map(({ canManage: _, ...d }) => d);
      const watches = setup.watches.map(({ breachSince, ...w }) => ({
        ...w,
        ...(breachSince ? { alertingSince: breachSince.toISOString() } : {}),
      }));
      const breaching = watches.filter((w) => w.state.startsWith('breaching')).length;
      const blocks = setup.blocks.map((b) => {
        if (b.type !== 'header') return b;
        const [, heading, rest] = /^(Your \w+)(.*)$/.exec(b.text.text) ?? [];
        const renamed = heading ? HEADINGS[heading] : undefined;
        return renamed ? { ...b, text: { ...b.text, text: `${renamed} in your channels${rest ?? ''}` } } : b;
      });
      return {
        text: `In your channels: ${counted(watches.length, 'watch', 'watches')} (${breaching} alerting), ${counted(digests.length, 'digest')} and ${counted(setup.subscriptions.length, 'channel')} with threat alerts.`,
        structured: {
          digests,
          watches,
          threatAlerts: setup.subscriptions.map((s) => ({ channelId: s.channelId, subscription: s.text })),
          ...(setup.recent ? { latestAlerts: setup.recent.map(({ acknowledgedBy: _, ...a }) => a) } : {}),
        },
        blocks: agentBlocks({ blocks: blocks }),
      };
    },
  };
}
