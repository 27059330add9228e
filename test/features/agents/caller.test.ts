/**
 * Which workspaces /mcp serves, by the same rule as /slack/events (workspace-rule.ts): a
 * workspace's own install, or its organisation's org-wide install (recorded for it), never
 * one Lookout knows outside that organisation; and the agent tokens' life: live, revoked,
 * expired, listed, and purged with their workspace. On PGlite and PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { expect, it } from 'vitest';
import { AgentTokenRepo } from '../../../src/features/agents/tokens.js';
import { WorkspaceService } from '../../../src/features/workspace/index.js';
import { serves, type Gate } from '../../../src/features/agents/mcp/caller.js';
import { keyring } from '../../../src/platform/secrets.js';
import { InstallationRepo } from '../../../src/platform/slack/installations.js';
import { describeEachDb } from '../../support/db.js';
import { captureLogs } from '../../support/log-capture.js';

const bot = { token: 'xoxb-secret', scopes: ['commands'], id: 'B1', userId: 'UB1' };

const ORG_INSTALL: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E1', name: 'Grid' },
  user: { id: 'U_ADMIN', token: undefined, scopes: undefined },
  bot,
  appId: 'A1',
  tokenType: 'bot',
  isEnterpriseInstall: true,
  authVersion: 'v2',
};

/** A workspace installed on its own, in organisation E2. */
const TEAM_INSTALL: Installation<'v2', false> = {
  team: { id: 'T_OWN', name: 'Own' },
  enterprise: { id: 'E2', name: 'Other grid' },
  user: { id: 'U_OWNER', token: undefined, scopes: undefined },
  bot,
  appId: 'A1',
  tokenType: 'bot',
  isEnterpriseInstall: false,
  authVersion: 'v2',
};

const DAY = 86_400_000;

describeEachDb('agents: who /mcp serves, and agent tokens', (t) => {
  const gate = (): Gate & { installations: InstallationRepo } => ({
    signed: undefined as never,
    tokens: new AgentTokenRepo(t.db),
    installations: new InstallationRepo(t.db, keyring(randomBytes(32).toString('base64'))),
    now: () => new Date(),
  });

  it('serves a workspace through its organisation’s org-wide install, and records it', async () => {
    const g = gate();
    await g.installations.storeInstallation(ORG_INSTALL);
    expect(await serves(g, { team: 'T_GRID', user: 'U1' })).toBe(false);
    expect(await serves(g, { team: 'T_GRID', enterprise: 'E1', user: 'U1' })).toBe(true);
    // Recorded: the workspace is served without naming its organisation again (a token's call names none).
    expect(await serves(g, { team: 'T_GRID', user: 'U1' })).toBe(true);
    expect(await serves(g, { team: 'T_ELSE', enterprise: 'E9', user: 'U1' })).toBe(false);
  });

  it('never serves, through an organisation, a workspace Lookout knows outside it', async () => {
    const g = gate();
    await g.installations.storeInstallation(ORG_INSTALL);
    await g.installations.storeInstallation(TEAM_INSTALL);
    expect(await serves(g, { team: 'T_OWN', user: 'U1' })).toBe(true);
    await g.installations.uninstalled('T_OWN');
    expect(await serves(g, { team: 'T_OWN', user: 'U1' })).toBe(false);
    expect(await serves(g, { team: 'T_OWN', enterprise: 'E1', user: 'U1' })).toBe(false);
  });

  it('serves anyone its own Slack signs for when it is one workspace (no installations)', async () => {
    const { installations: _none, ...single } = gate();
    expect(await serves(single, { team: 'T_ANY', user: 'U1' })).toBe(true);
  });

  it('keeps only a token’s hash; verifies it while live; lists, revokes and expires it', async () => {
    const tokens = new AgentTokenRepo(t.db);
    const now = new Date('2026-11-27T12:00:00Z');
    const made = await tokens.create('T1', 'U1', 'laptop', 90 * DAY, now);
    expect(made.token).toMatch(/^lka_[A-Za-z0-9_-]{43}$/);
    const { rows } = await t.db.query<Record<string, unknown>>('SELECT * FROM agent_tokens');
    expect(JSON.stringify(rows)).not.toContain(made.token.slice(4));
    expect(await tokens.verify(made.token, now)).toEqual({ id: made.id, team: 'T1', user: 'U1' });
    expect(await tokens.verify(`${made.token}x`, now)).toBeUndefined();
    expect(await tokens.verify(made.token, new Date(now.getTime() + 90 * DAY))).toBeUndefined();
    const [listed] = await tokens.list('T1', 'U1');
    expect(listed).toMatchObject({ id: made.id, name: 'laptop', createdAt: now, lastUsedAt: now });
    expect(listed?.expiresAt).toEqual(new Date(now.getTime() + 90 * DAY));
    expect(await tokens.list('T1', 'U2')).toEqual([]);
    expect(await tokens.revoke('T1', 'U2', made.id)).toBe(false);
    expect(await tokens.revoke('T1', 'U1', made.id)).toBe(true);
    expect(await tokens.verify(made.token, now)).toBeUndefined();
    expect(await tokens.list('T1', 'U1')).toEqual([]);
  });

  it('goes with its workspace when the workspace is purged', async () => {
    const tokens = new AgentTokenRepo(t.db);
    await tokens.create('T_GONE', 'U1', 'cli', DAY, new Date());
    const kept = await tokens.create('T_STAYS', 'U1', 'cli', DAY, new Date());
    const workspace = new WorkspaceService({
      db: t.db,
      tenants: undefined as never,
      deliveries: undefined as never,
      allowedOrigins: [],
      log: captureLogs().logger,
    });
    await workspace.purge('T_GONE');
    const { rows } = await t.db.query<{ team_id: string }>('SELECT team_id FROM agent_tokens');
    expect(rows).toEqual([{ team_id: 'T_STAYS' }]);
    expect(await tokens.verify(kept.token, new Date())).toMatchObject({ team: 'T_STAYS' });
  });
});
