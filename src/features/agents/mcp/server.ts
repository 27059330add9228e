/**
 * One McpServer per request (stateless), serving every feature's tools. Each call: who asks
 * (a token's person, or the person a Slack-signed call names, in a workspace Lookout serves),
 * the tool run on their behalf, its answer (for Slackbot with the blocks Lookout would post,
 * fitted to Slack's rules for a message), logged and counted. A refusal reaches the agent in
 * its own words; any other failure is logged and reaches it as a generic text.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Counter } from 'prom-client';
import { forPerson } from '../../../platform/api/budget.js';
import { AgentRefusal, type AgentCaller, type AgentTool } from '../../../platform/feature.js';
import type { Logger } from '../../../platform/log.js';
import type { PreflightGate } from '../../../platform/slack/preflight-gate.js';
import { TenantError, type Tenant } from '../../../platform/tenancy/tenants.js';
import { identityOf, serves, type Entry, type Gate, type Identity } from './caller.js';

export interface ServerDeps {
  McpServer: typeof McpServer;
  /** Every feature's tools (known once every feature is plugged). */
  tools: () => readonly AgentTool[];
  gate: Gate;
  tenantOf: (team: string) => Promise<Tenant>;
  preflight: PreflightGate;
  calls: Counter<'tool' | 'outcome'>;
  log: Logger;
}

type Outcome = 'ok' | 'refused' | 'error';

const SAID = {
  anonymous:
    'Lookout could not tell who is asking: the call came without a Slack person and workspace. Ask from Slack again.',
  notInstalled:
    'Lookout is not installed in this workspace (or it was removed), so it cannot answer here. A workspace admin can install it again from Lookout’s install page.',
  failed:
    'Lookout could not answer this just now. Try again in a minute; if it keeps happening, tell whoever runs Lookout.',
} as const;

const refusal = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** A new server for one request, with every tool, answering as `entry` allows. */
export function buildServer(deps: ServerDeps, entry: Entry): McpServer {
  const server = new deps.McpServer({ name: 'lookout', version: '1' });
  for (const tool of deps.tools()) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: true },
        _meta: { slack: { supportsBlockKit: true } },
      },
      (args: Record<string, unknown>, extra) => call(deps, entry, tool, args, extra._meta),
    );
  }
  return server;
}

async function call(
  deps: ServerDeps,
  entry: Entry,
  tool: AgentTool,
  args: Record<string, unknown>,
  meta: unknown,
): Promise<CallToolResult> {
  const started = performance.now();
  // A token's person; a Slack-signed call's own (`_meta.slack` is read only when Slack signed it).
  const who: Identity | undefined = entry.via === 'token' ? entry.identity : identityOf(meta);
  let outcome: Outcome = 'ok';
  let requests = 0;
  const done = (result: CallToolResult): CallToolResult => {
    deps.calls.inc({ tool: tool.name, outcome });
    deps.log.info(
      {
        tool: tool.name,
        team: who?.team,
        user: who?.user,
        via: entry.via,
        outcome,
        apiRequests: requests,
        ms: Math.round(performance.now() - started),
      },
      'agent tool call',
    );
    return result;
  };
  if (!who) {
    outcome = 'refused';
    return done(refusal(SAID.anonymous));
  }
  try {
    if (entry.via === 'slack' && !(await serves(deps.gate, who))) {
      outcome = 'refused';
      return done(refusal(SAID.notInstalled));
    }
    const caller: AgentCaller = {
      ...who,
      via: entry.via,
      tenant: () => deps.tenantOf(who.team),
      log: deps.log.child({ tool: tool.name, team: who.team, user: who.user }),
    };
    const ran = await forPerson(() => tool.run(args, caller));
    requests = ran.requests;
    const answer = ran.value;
    let blocks: unknown[] | undefined;
    if (entry.via === 'slack' && answer.blocks?.length) {
      // Slackbot shows them as a message: fitted to Slack's rules for one, or left out.
      const fitted = deps.preflight.message('mcp', { text: answer.text, blocks: [...answer.blocks] });
      blocks = fitted.blocks?.length ? [...fitted.blocks] : undefined;
    }
    return done({
      content: [{ type: 'text', text: answer.text }],
      structuredContent: answer.structured,
      ...(blocks ? { _meta: { slack: { blocks } } } : {}),
    });
  } catch (error) {
    if (error instanceof AgentRefusal || error instanceof TenantError) {
      outcome = 'refused';
      return done(refusal(error.message));
    }
    outcome = 'error';
    deps.log.error(
      { tool: tool.name, team: who.team, err: error instanceof Error ? error.message : String(error) },
      'an agent tool failed',
    );
    return done(refusal(SAID.failed));
  }
}
