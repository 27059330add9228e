/**
 * An org-wide install (Enterprise Grid) end to end: an Org Admin installs Lookout for the whole
 * organisation through the OAuth flow, adds it to a workspace, and a command from that workspace is
 * answered with the organisation's token; each workspace of the organisation connects its own analytics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, distributedSandbox, install, run, type DistributedBox } from '../../support/distributed.js';

const GRID = { id: 'E_GRID', name: 'Grid Org' };
const ADMIN = 'W_ORG_ADMIN';

let box: DistributedBox;
const east = () => box.slack.team('T_GRID_EAST');
const west = () => box.slack.team('T_GRID_WEST');

beforeAll(async () => {
  box = await distributedSandbox(
    {},
    {
      slack: {
        workspaces: [
          {
            team: { id: 'T_GRID_EAST', name: 'Grid East', domain: 'grid-east', enterprise: GRID },
            channels: [{ id: 'C_EAST', name: 'east' }],
            users: [{ id: ADMIN, name: 'olga' }],
          },
          {
            team: { id: 'T_GRID_WEST', name: 'Grid West', domain: 'grid-west', enterprise: GRID },
            channels: [{ id: 'C_WEST', name: 'west' }],
            users: [{ id: ADMIN, name: 'olga' }],
          },
        ],
      },
    },
  );
});
afterAll(() => box?.stop());

describe('an org-wide install', () => {
  it('is installed for the organisation through the OAuth flow and stored by its enterprise id', async () => {
    const done = await install(box, GRID.id, ADMIN);
    expect(done).toMatchObject({ status: 200, html: expect.stringContaining('installed in Grid Org') });
    const { rows } = await box.lookout.store.db.query<{ id: string; team_id: string | null }>(
      'SELECT id, team_id, is_enterprise_install FROM installations',
    );
    expect(rows).toEqual([{ id: 'enterprise:E_GRID', team_id: null, is_enterprise_install: true }]);
  });

  it('answers a command from a workspace it was added to with the organisation’s token, and the Org Admin connects that workspace', async () => {
    box.slack.addToWorkspace('T_GRID_EAST');
    expect(await run(east(), 'C_EAST', ADMIN, 'sources last7d')).toContain('not connected to an analytics account');
    const account = box.lookout.accounts.find((a) => a.teamId === 'T_LOOKOUT')!;
    expect((await connect(east(), ADMIN, account.baseUrl, account.apiKey)).outcome).toBe('connected');
    expect(east().workspace.home(ADMIN)?.publishes).toBeGreaterThan(0);
    const answer = await run(east(), 'C_EAST', ADMIN, 'sources last7d');
    expect(answer).toContain('Sources');
    expect(answer).not.toContain('not connected');
    const { rows } = await box.lookout.store.db.query('SELECT team_id, enterprise_id FROM workspaces');
    expect(rows).toEqual([{ team_id: 'T_GRID_EAST', enterprise_id: 'E_GRID' }]);
    // No install of the workspace's own: every call to Slack above went with the organisation's token.
    const installs = await box.lookout.store.db.query<{ id: string }>('SELECT id FROM installations');
    expect(installs.rows.map((r) => r.id)).toEqual(['enterprise:E_GRID']);
  });

  it('keeps a connection per workspace: another workspace of the organisation connects its own', async () => {
    box.slack.addToWorkspace('T_GRID_WEST');
    expect(await run(west(), 'C_WEST', ADMIN, 'sources last7d')).toContain('not connected to an analytics account');
    const account = box.lookout.accounts.find((a) => a.teamId === 'T_OTHER')!;
    expect((await connect(west(), ADMIN, account.baseUrl, account.apiKey)).outcome).toBe('connected');
    expect(await run(west(), 'C_WEST', ADMIN, 'sources last7d')).toContain('Sources');
    const { rows } = await box.lookout.store.db.query('SELECT team_id, enterprise_id FROM workspaces ORDER BY team_id');
    expect(rows).toEqual([
      { team_id: 'T_GRID_EAST', enterprise_id: 'E_GRID' },
      { team_id: 'T_GRID_WEST', enterprise_id: 'E_GRID' },
    ]);
    const served = await box.lookout.store.db.query(
      'SELECT team_id, enterprise_id FROM org_workspaces ORDER BY team_id',
    );
    expect(served.rows).toEqual(rows);
  });
});
