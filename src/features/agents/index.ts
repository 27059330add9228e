import type { KnownBlock } from '@slack/types';
import { logOf, type LookoutFeature } from '../../context.js';
import type { CommandTable } from '../../platform/feature.js';
import type { Queryable } from '../../platform/store/db.js';
import { AgentHome } from './home.js';
import { registerAgentHome } from './listeners.js';
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
      /** The Home's "Connect an AI agent" section: the person's tokens in this workspace. */
      homeSection(team: string, user: string): Promise<KnownBlock[]>;
    };
  }
}

/**
 * Lookout for agents: /mcp serves every feature's tools to Slackbot (requests Slack signs) and to
 * any MCP client holding a person's agent token (AgentTokenRepo, made from the App Home); each
 * call runs as its person, in their workspace.
 */
export const agents: LookoutFeature<
  'agents',
  never,
  { agentTokens: AgentTokenRepo },
  ReturnType<typeof agentsSettings>
> = {
  name: 'agents',
  migrations: new URL('./migrations/', import.meta.url),
  get settings() {
    return agentsSettings();
  },
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
    const log = logOf(ctx, 'agents');
    const home = new AgentHome({
      tokens: agentTokens,
      ttlMs: settings.AGENT_TOKEN_TTL,
      mcpUrl: () => undefined,
      now: platform.now,
      timeZone: ctx.settings.DEFAULT_TIMEZONE,
      log,
    });
    let tools: CommandTable['tools'] = [];
    return {
      gives: {
        tokens: agentTokens,
        ttlMs: settings.AGENT_TOKEN_TTL,
        homeSection: (team, user) => home.section(team, user),
      },
      register: (routes, commands) => {
        // The tools are every feature's, known once all are plugged: read at each request.
        tools = commands.tools;
        registerAgentHome(routes, home, (user) => platform.changes.changed({ users: [user] }));
      },
      http: mcpRoutes({
        tools: () => tools,
        gate,
        tenantOf: (team) => platform.tenants.of(team),
        preflight: platform.preflight,
        calls,
        log,
      }),
    };
  },
};
