/**
 * The installation store against Bolt's InstallationStore contract, on PGlite and PostgreSQL:
 * team and org-wide installs, a workspace of an organisation installed on its own, delete,
 * an unknown workspace, and tokens never in clear text in the table.
 */
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { InstallProvider } from '@slack/oauth';
import { expect, it } from 'vitest';
import { keyring, SecretError } from '../../../src/platform/secrets.js';
import { InstallationRepo } from '../../../src/platform/slack/installations.js';
import { ConnectionRepo } from '../../../src/platform/tenancy/connections.js';
import { describeEachDb } from '../../support/db.js';

const OLD_KEY = randomBytes(32).toString('base64');
const KEY = randomBytes(32).toString('base64');

const TEAM_INSTALL: Installation<'v2', false> = {
  team: { id: 'T0TEAM', name: 'Acme' },
  enterprise: undefined,
  user: { id: 'U0INSTALLER', token: 'xoxp-user-token-secret-1', scopes: ['search:read'] },
  bot: {
    token: 'xoxe.xoxb-bot-token-secret-1',
    refreshToken: 'xoxe-1-refresh-secret-1',
    expiresAt: 1_800_000_000,
    scopes: ['commands', 'chat:write'],
    id: 'B0BOT',
    userId: 'U0BOTUSER',
  },
  appId: 'A0LOOKOUT',
  tokenType: 'bot',
  isEnterpriseInstall: false,
  authVersion: 'v2',
};

/** A workspace inside an organisation, installed on its own (not org-wide). */
const TEAM_IN_ORG: Installation<'v2', false> = {
  ...TEAM_INSTALL,
  team: { id: 'T0GRIDTEAM', name: 'Grid team' },
  enterprise: { id: 'E0GRID', name: 'Grid' },
  user: { id: 'U0OTHER', token: undefined, scopes: undefined },
  bot: { ...TEAM_INSTALL.bot!, token: 'xoxb-bot-token-secret-2', refreshToken: undefined, expiresAt: undefined },
};

const ORG_INSTALL: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E0GRID', name: 'Grid' },
  enterpriseUrl: 'https://grid.enterprise.slack.com/',
  user: { id: 'U0ORGADMIN', token: undefined, scopes: undefined },
  bot: { ...TEAM_INSTALL.bot!, token: 'xoxb-bot-token-secret-org', refreshToken: undefined, expiresAt: undefined },
  appId: 'A0LOOKOUT',
  tokenType: 'bot',
  isEnterpriseInstall: true,
  authVersion: 'v2',
};

const SECRETS = [
  'xoxp-user-token-secret-1',
  'xoxe.xoxb-bot-token-secret-1',
  'xoxe-1-refresh-secret-1',
  'xoxb-bot-token-secret-2',
  'xoxb-bot-token-secret-org',
];

/** What Bolt gets back: the installation as stored, without the keys a JSON round trip drops. */
const asStored = (i: Installation) => JSON.parse(JSON.stringify(i)) as Installation;

describeEachDb('installation store', (t) => {
  const repo = (key = KEY, previous: string[] = []) => new InstallationRepo(t.db, keyring(key, previous));
  const rawRows = async () =>
    (await t.db.query('SELECT * FROM installations ORDER BY id')).rows.map((row) => JSON.stringify(row));

  it('stores and fetches a team install, tokens and expiry included', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    const fetched = await repo().fetchInstallation({
      teamId: 'T0TEAM',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(asStored(fetched)).toEqual(asStored(TEAM_INSTALL));
  });

  it('stores an org-wide install by its organisation, and a workspace of it installed on its own by its team', async () => {
    await repo().storeInstallation(ORG_INSTALL);
    await repo().storeInstallation(TEAM_IN_ORG);
    const org = await repo().fetchInstallation({
      teamId: undefined,
      enterpriseId: 'E0GRID',
      isEnterpriseInstall: true,
    });
    expect(asStored(org)).toEqual(asStored(ORG_INSTALL));
    const team = await repo().fetchInstallation({
      teamId: 'T0GRIDTEAM',
      enterpriseId: 'E0GRID',
      isEnterpriseInstall: false,
    });
    expect(asStored(team)).toEqual(asStored(TEAM_IN_ORG));
    // A request from another workspace of the organisation, under the org-wide install, gets the org's token.
    const viaOrg = await repo().fetchInstallation({
      teamId: 'T0ELSE',
      enterpriseId: 'E0GRID',
      isEnterpriseInstall: true,
    });
    expect(viaOrg.bot?.token).toBe('xoxb-bot-token-secret-org');
  });

  it('rejects, as Bolt expects, a workspace or an organisation it does not hold', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    await expect(
      repo().fetchInstallation({ teamId: 'T0UNKNOWN', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow('Lookout is not installed in workspace T0UNKNOWN');
    // A team install is not an org-wide one, even with the same id as the organisation's.
    await expect(
      repo().fetchInstallation({ teamId: undefined, enterpriseId: 'T0TEAM', isEnterpriseInstall: true }),
    ).rejects.toThrow('Lookout is not installed in organisation T0TEAM (org-wide install)');
    await expect(
      repo().fetchInstallation({ teamId: undefined, enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow('Lookout is not installed in workspace (none given)');
  });

  it('deletes an installation; a user only forgets that user’s token', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    await repo().storeInstallation(ORG_INSTALL);
    const query = { teamId: 'T0TEAM', enterpriseId: undefined, isEnterpriseInstall: false } as const;

    await repo().deleteInstallation({ ...query, userId: 'U0SOMEONEELSE' });
    expect((await repo().fetchInstallation(query)).user.token).toBe('xoxp-user-token-secret-1');
    await repo().deleteInstallation({ ...query, userId: 'U0INSTALLER' });
    const withoutUser = await repo().fetchInstallation(query);
    expect(withoutUser.user.token).toBeUndefined();
    expect(withoutUser.bot?.token).toBe('xoxe.xoxb-bot-token-secret-1');

    await repo().deleteInstallation(query);
    await expect(repo().fetchInstallation(query)).rejects.toThrow('Lookout is not installed in workspace T0TEAM');
    expect(await rawRows()).toHaveLength(1);
    await repo().deleteInstallation({ teamId: undefined, enterpriseId: 'E0GRID', isEnterpriseInstall: true });
    expect(await rawRows()).toEqual([]);
  });

  it('gives the user token only to its own user, and keeps it when Bolt stores a refreshed bot token', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    const query = { teamId: 'T0TEAM', enterpriseId: undefined, isEnterpriseInstall: false } as const;
    const forOther = await repo().fetchInstallation({ ...query, userId: 'U0SOMEONEELSE' });
    expect(forOther.user).toEqual({ id: 'U0INSTALLER', scopes: ['search:read'] });
    // Bolt's authorize refreshes the bot's token and stores what it fetched for another user.
    await repo().storeInstallation({
      ...forOther,
      bot: {
        ...forOther.bot!,
        token: 'xoxe.xoxb-refreshed',
        refreshToken: 'xoxe-1-refreshed',
        expiresAt: 1_900_000_000,
      },
    });
    const after = await repo().fetchInstallation(query);
    expect(after.user.token).toBe('xoxp-user-token-secret-1');
    expect(after.bot).toMatchObject({
      token: 'xoxe.xoxb-refreshed',
      refreshToken: 'xoxe-1-refreshed',
      expiresAt: 1_900_000_000,
    });
  });

  it('an uninstalled workspace is not fetched; installing again brings it back', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    await t.db.query(`UPDATE installations SET uninstalled_at = now() WHERE team_id = 'T0TEAM'`);
    const query = { teamId: 'T0TEAM', enterpriseId: undefined, isEnterpriseInstall: false } as const;
    await expect(repo().fetchInstallation(query)).rejects.toThrow('Lookout is not installed in workspace T0TEAM');
    await repo().storeInstallation(TEAM_INSTALL);
    expect((await repo().fetchInstallation(query)).bot?.token).toBe('xoxe.xoxb-bot-token-secret-1');
  });

  it('never holds a token in clear text', async () => {
    for (const i of [TEAM_INSTALL, TEAM_IN_ORG, ORG_INSTALL]) await repo().storeInstallation(i);
    const rows = await rawRows();
    expect(rows).toHaveLength(3);
    for (const row of rows) for (const secret of SECRETS) expect(row).not.toContain(secret);
    expect(rows.join('\n')).toMatch(/"bot_token":"v1:[0-9a-f]{8}:/);
  });

  it('a token moved to another workspace’s row does not open there', async () => {
    await repo().storeInstallation(TEAM_INSTALL);
    await repo().storeInstallation(TEAM_IN_ORG);
    await t.db.query(
      `UPDATE installations SET bot_token = (SELECT bot_token FROM installations WHERE team_id = 'T0TEAM') WHERE team_id = 'T0GRIDTEAM'`,
    );
    const error = await repo()
      .fetchInstallation({ teamId: 'T0GRIDTEAM', enterpriseId: 'E0GRID', isEnterpriseInstall: false })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(SecretError);
    expect((error as Error).message).toBe(
      'The stored installations.bot_token/team:T0GRIDTEAM does not open with key ' +
        keyring(KEY).current.id +
        ': it was altered, or sealed for something else',
    );
    for (const secret of SECRETS) expect((error as Error).message).not.toContain(secret);
  });

  it('rotation: re-seals under the new key what the old key sealed, and it opens once the old key is removed', async () => {
    const query = { teamId: 'T0TEAM', enterpriseId: undefined, isEnterpriseInstall: false } as const;
    await repo(OLD_KEY).storeInstallation(TEAM_INSTALL);
    await repo(OLD_KEY).storeInstallation(ORG_INSTALL);
    const before = await rawRows();

    // Without the old key nothing opens, and the error names the keys, not the values.
    const refused = await repo()
      .fetchInstallation(query)
      .catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(SecretError);
    for (const secret of [...SECRETS, OLD_KEY, KEY]) expect((refused as Error).message).not.toContain(secret);

    const rotating = repo(KEY, [OLD_KEY]);
    expect(asStored(await rotating.fetchInstallation(query))).toEqual(asStored(TEAM_INSTALL));
    expect(await rotating.resealAll()).toBe(2);
    expect(await rotating.resealAll()).toBe(0);
    const after = await rawRows();
    expect(after).not.toEqual(before);
    const newId = keyring(KEY).current.id;
    for (const row of after) {
      expect(row).not.toContain(`v1:${keyring(OLD_KEY).current.id}:`);
      expect(row).toContain(`v1:${newId}:`);
    }

    expect(asStored(await repo().fetchInstallation(query))).toEqual(asStored(TEAM_INSTALL));
    expect(
      asStored(
        await repo().fetchInstallation({ teamId: undefined, enterpriseId: 'E0GRID', isEnterpriseInstall: true }),
      ),
    ).toEqual(asStored(ORG_INSTALL));
  });

  it('an org-wide install through Bolt’s InstallProvider: a workspace of the organisation gets the org’s token once a signed request from it named the organisation', async () => {
    const store = repo();
    const installer = new InstallProvider({
      clientId: 'client',
      clientSecret: 'secret',
      stateSecret: 'state',
      installationStore: store,
    });
    await installer.installationStore.storeInstallation(ORG_INSTALL);
    // What Bolt asks for a request from workspace T0ELSE that Slack says came under the org-wide install.
    const asked = { teamId: 'T0ELSE', enterpriseId: 'E0GRID', isEnterpriseInstall: true } as const;
    expect((await installer.authorize(asked)).botToken).toBe('xoxb-bot-token-secret-org');
    // A job, or the request's own lookups, ask by workspace alone: unknown until a request named its organisation.
    expect(await store.queryFor('T0ELSE')).toBeUndefined();
    await store.servedByOrg('T0ELSE', 'E0GRID');
    const query = await store.queryFor('T0ELSE');
    expect(query).toEqual(asked);
    expect((await installer.authorize(query!)).botToken).toBe('xoxb-bot-token-secret-org');
    // A workspace of the organisation installed on its own keeps its own token.
    await store.storeInstallation(TEAM_IN_ORG);
    await store.servedByOrg('T0GRIDTEAM', 'E0GRID');
    const own = await store.queryFor('T0GRIDTEAM');
    expect(own).toEqual({ teamId: 'T0GRIDTEAM', enterpriseId: 'E0GRID', isEnterpriseInstall: false });
    expect((await installer.authorize(own!)).botToken).toBe('xoxb-bot-token-secret-2');
    // A workspace said to be of an organisation that never installed Lookout gets nothing, and is not recorded.
    await store.servedByOrg('T0STRANGER', 'E0NOWHERE');
    expect(await store.queryFor('T0STRANGER')).toBeUndefined();
    expect((await t.db.query("SELECT 1 FROM org_workspaces WHERE team_id = 'T0STRANGER'")).rows).toEqual([]);
    // The organisation removes the install: none of its workspaces is served through it any more.
    await installer.installationStore.deleteInstallation!({
      teamId: undefined,
      enterpriseId: 'E0GRID',
      isEnterpriseInstall: true,
    });
    expect(await store.queryFor('T0ELSE')).toBeUndefined();
    await expect(installer.authorize(asked)).rejects.toThrow();
  });

  it('a workspace is believed outside an organisation its own install does not name; its uninstall ends every link to one', async () => {
    const store = repo();
    await store.storeInstallation(ORG_INSTALL);
    await store.storeInstallation(TEAM_INSTALL);
    await store.storeInstallation(TEAM_IN_ORG);
    // Its own install names no organisation, or another: a request saying E0GRID's install serves it is not believed.
    expect(await store.outsideOrg('T0TEAM', 'E0GRID')).toBe(true);
    expect(await store.outsideOrg('T0GRIDTEAM', 'E0OTHER')).toBe(true);
    // Its own install names the organisation, or Lookout knows nothing of it: nothing says otherwise.
    expect(await store.outsideOrg('T0GRIDTEAM', 'E0GRID')).toBe(false);
    expect(await store.outsideOrg('T0ELSE', 'E0GRID')).toBe(false);
    // Linked to the organisation by a request, and by its connection: served with the org's token.
    await store.servedByOrg('T0ELSE', 'E0GRID');
    await new ConnectionRepo(t.db, keyring(KEY)).save({
      team: 'T0ELSE',
      enterprise: 'E0GRID',
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'key-of-T0ELSE-123',
      connectedBy: 'U0ORGADMIN',
    });
    expect(await store.queryFor('T0ELSE')).toMatchObject({ enterpriseId: 'E0GRID', isEnterpriseInstall: true });
    expect(await store.installerOf('T0ELSE')).toBe('U0ORGADMIN');
    // The workspace removes Lookout: neither link serves it any more; its connection stays for the retention.
    await store.uninstalled('T0ELSE');
    expect(await store.queryFor('T0ELSE')).toBeUndefined();
    expect(await store.installerOf('T0ELSE')).toBeUndefined();
    expect((await t.db.query("SELECT 1 FROM org_workspaces WHERE team_id = 'T0ELSE'")).rows).toEqual([]);
    expect((await t.db.query("SELECT enterprise_id FROM workspaces WHERE team_id = 'T0ELSE'")).rows).toEqual([
      { enterprise_id: null },
    ]);
    // A later signed request from the organisation's install records it again.
    await store.servedByOrg('T0ELSE', 'E0GRID');
    expect(await store.queryFor('T0ELSE')).toMatchObject({ enterpriseId: 'E0GRID', isEnterpriseInstall: true });
  });
});
