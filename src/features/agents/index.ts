import { logOf, type LookoutFeature } from '../../context.js';
import type { CommandTable } from '../../platform/feature.js';
import type { Queryable } from '../../platform/store/db.js';
import { mcpRoutes } from './mcp/route.js';
import { agentsSettings } from './settings.js';
import { AgentTokenRepo } from './tokens.js';

export { AgentTokenRepo } from './tokens.js';
export { MCP_PATH } from './mcp/route.js';

declare module '../../platform/feature.js' {
  interface Provided {
    agents: {
      tokens: AgentTokenRepo;
      /** How long a new token lives (AGENT_TOKEN_TTL). */
      ttlMs: number;
    };
  }
}

/**
 * Lookout for agents: /mcp serves every feature's tools to Slackbot (requests Slack signs) and to
 * any MCP client holding a person's agent token (AgentTokenRepo, made from the App Home); each
 * call runs as its person, in their workspace.
 */
export const agents: LookoutFeature<'agents', never, { agentTokens: AgentTokenRepo }, typeof agentsSettings> = {
  name: 'agents',
  migrations: new URL('./migrations/', import.meta.url),
  settings: agentsSettings,
  repos: (db: Queryable) => ({ agentTokens: new AgentTokenRepo(db) }),
  plug(ctx, _needs, { agentTokens }, settings) {
    const { platform } = ctx;
    const calls = platform.metrics.counter({
      name: 'lookout_agent_calls_total',
      help: 'Agent tool calls (/mcp) by tool and outcome: ok, refused (told why), error',
      labelNames: ['tool', 'outcome'],
    });
    const gate = {
      signed: platform.signed,
      tokens: agentTokens,
      ...(platform.installer && platform.installations ? { installations: platform.installations } : {}),
      now: ctx.now,
    };
    let tools: CommandTable['tools'] = [];
    return {
      gives: { tokens: agentTokens, ttlMs: settings.AGENT_TOKEN_TTL },
      // The tools are every feature's, known once all are plugged: read at each request.
      register: (_routes, commands) => void (tools = commands.tools),
      http: mcpRoutes({
        tools: () => tools,
        gate,
        tenantOf: (team) => platform.tenants.of(team),
        preflight: platform.preflight,
        calls,
        log: logOf(ctx, 'agents'),
      }),
    };
  },
};
