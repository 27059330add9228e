/** The `visitor_profile` agent tool: a visitor's security card, as `/visitor` answers it, for those who may see it. */
import { z } from 'zod';
import { counted } from '../../kernel/format.js';
import { SECURITY_CHECKS } from '../../kernel/records.js';
import { AgentRefusal, toolSchemas, type AgentCaller, type AgentTool } from '../../platform/feature.js';
import { agentBlocks } from '../../platform/slack/kit/agent-blocks.js';
import { visitorIds } from './parse.js';
import type { VisitorService } from './service.js';

const schemas = toolSchemas(() => {
  const input = {
    visitorId: z.string().min(1).max(128).describe('From the visitors or visits report, or an alert'),
    visitId: z.string().min(1).max(128).optional().describe('To check one of their visits'),
  };

  const SEVERITY = z.enum(['low', 'medium', 'high']);

  const output = {
    visitorId: z.string(),
    verdict: z.enum(['Threat', 'Suspicious', 'Human', 'Unknown']),
    severity: SEVERITY.optional(),
    reasons: z.array(z.object({ rule: z.string(), severity: SEVERITY, text: z.string() })),
    gaps: z.array(z.string()).describe('What could not be judged'),
    failedChecks: z.array(z.enum(SECURITY_CHECKS)).describe('Lookups that did not answer'),
  };
  return { input, output };
});

type Input = typeof schemas.input;
type Args = { [K in keyof Input]: z.output<Input[K]> };

export function visitorTool(visitors: VisitorService): AgentTool {
  return {
    name: 'visitor_profile',
    title: 'Visitor profile',
    description:
      "A visitor's security verdict and why (bot, scraping, VPN, ad blocker, extensions); for people allowed security details.",
    get input() {
      return schemas.input;
    },
    get output() {
      return schemas.output;
    },
    async run(raw, caller: AgentCaller) {
      const args = raw as Args;
      const parsed = visitorIds(args.visitorId, args.visitId);
      if (parsed.kind === 'error') throw new AgentRefusal(parsed.message);
      const card = await visitors.card(await caller.tenant(), {
        visitorId: parsed.visitorId,
        ...(parsed.visitId ? { visitId: parsed.visitId } : {}),
        channelId: undefined,
        user: caller.user,
        privately: true,
        log: caller.log,
      });
      if (!card.ok) throw new AgentRefusal(card.message.text);
      const { verdict, profile } = card;
      const failedChecks = SECURITY_CHECKS.filter((c) => !profile.security[c].ok);
      const why = verdict.reasons.map((r) => r.text).join('; ');
      return {
        text: `Visitor ${parsed.visitorId}: ${verdict.name}${verdict.severity ? ` (${verdict.severity})` : ''}${why ? `, ${counted(verdict.reasons.length, 'reason')}: ${why}` : ''}.${failedChecks.length ? ` ${counted(failedChecks.length, 'check')} did not answer: ${failedChecks.join(', ')}.` : ''}`,
        structured: {
          visitorId: parsed.visitorId,
          verdict: verdict.name,
          ...(verdict.severity ? { severity: verdict.severity } : {}),
          reasons: verdict.reasons.map((r) => ({ rule: r.rule, severity: r.severity, text: r.text })),
          gaps: verdict.gaps,
          failedChecks,
        },
        blocks: agentBlocks(card.message),
      };
    },
  };
}
