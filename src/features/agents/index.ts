import type { KnownBlock } from '@slack/types';
import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import { AgentHome } from './home.js';
import { registerAgentHome } from './listeners.js';
import { AgentTokenRepo } from './tokens.js';

export type { AgentTokenRepo } from './tokens.js';

declare module '../../platform/feature.js' {
  interface Provided {
    agents: {
      tokens: AgentTokenRepo;
      ttlMs: number;
      /** The Home's "Connect an AI agent" section: the person's tokens in this workspace. */
      homeSection(team: string, user: string): Promise<KnownBlock[]>;
    };
  }
}

const DAY = 86_400_000;

/** Agents (any MCP client) ask Lookout as a person: that person's tokens, made and revoked on their Home. */
export const agents: LookoutFeature<'agents', never, { agentTokens: AgentTokenRepo }> = {
  name: 'agents',
  migrations: new URL('./migrations/', import.meta.url),
  repos: (db: Queryable) => ({ agentTokens: new AgentTokenRepo(db) }),
  plug(ctx, _needs, { agentTokens }) {
    const { platform } = ctx;
    const ttlMs = 90 * DAY;
    const home = new AgentHome({
      tokens: agentTokens,
      ttlMs,
      mcpUrl: () => undefined,
      now: platform.now,
      timeZone: ctx.settings.DEFAULT_TIMEZONE,
      log: logOf(ctx, 'agents'),
    });
    return {
      gives: { tokens: agentTokens, ttlMs, homeSection: (team, user) => home.section(team, user) },
      register: (routes) => registerAgentHome(routes, home, (user) => platform.changes.changed({ users: [user] })),
    };
  },
};
