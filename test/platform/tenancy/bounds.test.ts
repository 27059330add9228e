/**
 * Two workspaces against each other, on each store: T_LOOKOUT and T_OTHER installed and connected, an
 * organisation (E_GRID) installed org-wide, and T_NEVER, which never installed Lookout. Requests signed with
 * the app's secret carry field combinations Slack would not send together (one workspace's modal metadata
 * submitted from another, an event naming one workspace and authorised for another, an org-wide command naming
 * a workspace outside the organisation): none is served with another workspace's token or data. And every
 * request is answered: a workspace without Lookout is told so, Home buttons answer on the Home, and an
 * expected refusal is logged at warn.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, type SlackDriver, type View } from '@lookout/sandbox/slack';
import { DRILL_INPUTS, FILTER_INPUTS } from '../../../src/features/reports/modals.js';
import { ACTIONS } from '../../../src/features/workspace/blocks.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { type OpenDbOptions } from '../../../src/platform/store/db.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import {
  answerTo,
  distributedSandbox,
  install,
  openHome,
  quiet,
  run,
  type DistributedBox,
} from '../../support/distributed.js';
import { textsOf } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

const GRID = { id: 'E_GRID', name: 'Grid Org' };
const ADMIN = 'W_ORG_ADMIN';

type Json = Record<string, unknown>;
interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

if (!TEST_DATABASE_URL) console.warn('one workspace per request on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`one workspace per request [${kind}]`, () => {
    const schema = `t_bounds_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: DistributedBox;
    const one = () => box.slack.team('T_LOOKOUT');
    const other = () => box.slack.team('T_OTHER');
    const never = () => box.slack.team('T_NEVER');

    beforeAll(async () => {
      box = await distributedSandbox(
        { store, scheduler: false, home: { debounceMs: 50 } },
        {
          slack: {
            // Nothing here is about Slack's 3 s: a loaded machine must not turn a slow answer into a lost one.
            ackTimeoutMs: 30_000,
            workspaces: [
              {
                team: { id: 'T_GRID_EAST', name: 'Grid East', domain: 'grid-east', enterprise: GRID },
                channels: [{ id: 'C_EAST', name: 'east' }],
                users: [{ id: ADMIN, name: 'olga' }],
              },
              {
                team: { id: 'T_NEVER', name: 'Never Co', domain: 'never-co' },
                channels: [{ id: 'C_NEVER', name: 'general' }],
                users: [{ id: 'U_NEVA', name: 'neva' }],
              },
            ],
          },
        },
      );
      for (const [team, user, channel] of [
        ['T_LOOKOUT', 'U_ALICE', 'C_MARKETING'],
        ['T_OTHER', 'U_DANA', 'C_OTHER_GENERAL'],
      ] as const) {
        const slack = box.slack.team(team);
        expect((await install(box, team, user)).status).toBe(200);
        const account = box.lookout.accounts.find((a) => a.teamId === team)!;
        // Connected as the Home's form does it (the form itself is tested in workspaces.test.ts).
        const checked = await box.lookout.features.workspace.service.connect(
          team,
          undefined,
          user,
          account.baseUrl,
          account.apiKey,
        );
        if (!checked.ok) throw new Error(`could not connect ${team}: ${checked.problem}`);
        expect(await run(slack, channel, user, 'pages last7d')).toContain('Pages');
      }
      expect((await install(box, GRID.id, ADMIN)).status).toBe(200);
      box.slack.addToWorkspace('T_GRID_EAST');
      await quiet(box);
    }, 90_000);

    afterAll(async () => {
      await box?.stop();
      if (kind === 'postgres') await dropSchemas(schema);
    });

    /** A body signed with the app's secret, sent straight to the request URL. */
    async function signed(body: string, type: 'form' | 'json'): Promise<number> {
      const timestamp = Math.floor(Date.now() / 1000);
      const res = await fetch(box.lookout.requestUrl!, {
        method: 'POST',
        headers: {
          'content-type': type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': computeSignature(box.secrets.signingSecret, body, timestamp),
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    }

    const logsSince = (from: number): LogLine[] => box.logs.slice(from).map((l) => JSON.parse(l) as LogLine);
    const errorsSince = (from: number) => logsSince(from).filter((l) => l.level >= 50);
    const refusalsSince = (from: number) =>
      logsSince(from).filter((l) => l.level === 40 && l.msg.startsWith('request refused'));

    /** Slack calls for the workspace made by Bolt's clients or with an organisation's token (they name it: team_id). */
    const callsFor = (team: string, from: number) =>
      box.slack.webApi.calls.slice(from).filter((c) => c.args.team_id === team);

    /** A report answered in the person's channel, with its Filter… or Drill down modal opened from it. */
    async function modalFrom(slack: SlackDriver, channel: string, user: string, button: string): Promise<View> {
      const report = await answerTo(slack, channel, user, () => slack.slash(channel, user, 'countries all top 10'));
      const open = slack.openViews(user).length;
      await slack.click(report, button, undefined, { user });
      return slack.waitFor(() => {
        const view = slack.openViews(user).at(open);
        const ready = button !== 'report.drill' || (JSON.stringify(view?.blocks) ?? '').includes('"action_id":"row"');
        return view && ready ? view : undefined;
      });
    }

    it('1. refuses A’s filter and drill modal metadata submitted from B: the form says so, nothing reaches A, nothing is looked up', async () => {
      const cases = [
        [
          'report.filter',
          FILTER_INPUTS.target.block,
          { target: 'country.name', operator: 'is_any_of', values: 'Germany', group: 'all' },
        ],
        ['report.drill', DRILL_INPUTS.row.block, { row: '0', report: 'cities' }],
      ] as const;
      for (const [button, firstBlock, values] of cases) {
        const ours = await modalFrom(one(), 'C_MARKETING', 'U_ALICE', button);
        const theirs = await modalFrom(other(), 'C_OTHER_GENERAL', 'U_DANA', button);
        theirs.private_metadata = ours.private_metadata;
        await quiet(box);
        const seenInA = JSON.stringify(one().messages('C_MARKETING', { user: 'U_ALICE' }));
        const apiBefore = box.demo!.requests.length;
        const answer = await other().submit(theirs, values);
        expect(answer.json, button).toMatchObject({
          response_action: 'errors',
          errors: { [firstBlock]: expect.stringMatching(/too old, or not from this workspace/) },
        });
        await quiet(box);
        expect(JSON.stringify(one().messages('C_MARKETING', { user: 'U_ALICE' })), button).toBe(seenInA);
        expect(box.demo!.requests.length, button).toBe(apiBefore);
        await other().closeView(theirs);
        await one().closeView(ours);
      }
    });

    it('2. refuses an event whose team_id and authorizations name different workspaces, both ways: no Home is rendered or published', async () => {
      const homes = () => [
        one().workspace.home('U_ALICE')?.publishes ?? 0,
        other().workspace.home('U_DANA')?.publishes,
      ];
      for (const [named, authorised, user] of [
        ['T_OTHER', 'T_LOOKOUT', 'U_ALICE'],
        ['T_LOOKOUT', 'T_OTHER', 'U_DANA'],
      ] as const) {
        await quiet(box);
        const before = JSON.stringify(homes());
        const from = box.logs.length;
        const calls = box.slack.webApi.calls.length;
        const event = {
          token: 'unused',
          team_id: named,
          api_app_id: 'A_LOOKOUT',
          type: 'event_callback',
          event_id: `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
          event_time: Math.floor(Date.now() / 1000),
          event: { type: 'app_home_opened', user, tab: 'home', channel: `D_${user}`, event_ts: `${Date.now() / 1000}` },
          authorizations: [
            { enterprise_id: null, team_id: authorised, user_id: 'U_BOT', is_bot: true, is_enterprise_install: false },
          ],
        };
        expect(await signed(JSON.stringify(event), 'json')).toBe(200);
        const outcome = await until(
          () =>
            JSON.stringify(homes()) !== before ? 'published' : refusalsSince(from).length > 0 ? 'refused' : undefined,
          `the event naming ${named}, authorised for ${authorised}, handled`,
        );
        expect(outcome).toBe('refused');
        await quiet(box);
        expect(JSON.stringify(homes())).toBe(before);
        expect(box.slack.webApi.calls.slice(calls).filter((c) => c.method === 'views.publish')).toEqual([]);
        expect(refusalsSince(from)[0]).toMatchObject({
          team: named,
          reason: expect.stringContaining('another workspace'),
        });
      }
    });

    it('3. refuses an org-wide command naming a workspace outside the organisation (or of one that never installed): answered, nothing served, no link recorded', async () => {
      for (const enterprise of [GRID.id, 'E_NOWHERE']) {
        await quiet(box);
        const from = box.logs.length;
        const calls = box.slack.webApi.calls.length;
        const apiBefore = box.demo!.requests.length;
        const responseUrl = box.slack.responseUrls.create({ kind: 'command', channel: 'C_MARKETING', user: 'U_ALICE' });
        const command = new URLSearchParams({
          token: 'unused',
          team_id: 'T_LOOKOUT',
          team_domain: 'lookout-sandbox',
          enterprise_id: enterprise,
          enterprise_name: GRID.name,
          channel_id: 'C_MARKETING',
          channel_name: 'marketing',
          user_id: 'U_ALICE',
          user_name: 'alice',
          command: '/traffic',
          text: 'pages last7d',
          api_app_id: 'A_LOOKOUT',
          is_enterprise_install: 'true',
          response_url: responseUrl.url,
          trigger_id: `t.${randomBytes(4).toString('hex')}`,
        }).toString();
        const answer = await answerTo(one(), 'C_MARKETING', 'U_ALICE', () => signed(command, 'form'));
        const said = [answer.text ?? '', ...textsOf(answer)].join('\n');
        expect(said, enterprise).toMatch(/did not act on this/);
        expect(said, enterprise).not.toMatch(/Pages|\/pricing/);
        await quiet(box);
        expect(box.demo!.requests.length, enterprise).toBe(apiBefore);
        expect(callsFor('T_LOOKOUT', calls), enterprise).toEqual([]);
        const { rows } = await box.lookout.store.db.query("SELECT * FROM org_workspaces WHERE team_id = 'T_LOOKOUT'");
        expect(rows, enterprise).toEqual([]);
        expect(refusalsSince(from), enterprise).toHaveLength(1);
      }
    });

    it('4. ends a workspace’s link to an organisation when it uninstalls: nothing more is done for it with the org’s token, and its people are told', async () => {
      const db = box.lookout.store.db;
      // A link as a version before this one recorded it, from a request like the one in 3.
      await db.query(
        "INSERT INTO org_workspaces (team_id, enterprise_id) VALUES ('T_LOOKOUT', $1) ON CONFLICT (team_id) DO NOTHING",
        [GRID.id],
      );
      await box.slack.uninstall('T_LOOKOUT');
      await until(async () => {
        const { rows } = await db.query<{ uninstalled_at: Date | null }>(
          "SELECT uninstalled_at FROM installations WHERE id = 'team:T_LOOKOUT'",
        );
        return rows[0]?.uninstalled_at ? true : undefined;
      }, 'the uninstall to be recorded');
      await quiet(box);
      const calls = box.slack.webApi.calls.length;
      const { rows } = await db.query("SELECT * FROM org_workspaces WHERE team_id = 'T_LOOKOUT'");
      expect(rows).toEqual([]);
      await expect(box.lookout.tenants.of('T_LOOKOUT')).rejects.toMatchObject({ code: 'not_installed' });
      // Work for the workspace after it left: a post, and its person opening the Home.
      const id = await box.lookout.store.deliveries.enqueue({
        team: 'T_LOOKOUT',
        subject: NOTICE,
        channelId: 'C_MARKETING',
        message: { text: 'after the uninstall', blocks: [] },
        expiresInMs: 3_600_000,
      });
      box.lookout.deliveries.wake();
      await until(async () => {
        const d = await box.lookout.store.deliveries.get(id);
        return d && d.status !== 'pending' && d.status !== 'sending' ? d : undefined;
      }, 'the post to finish');
      await one().event('app_home_opened', 'U_ALICE', { tab: 'home', channel: 'D_U_ALICE' });
      expect(await run(one(), 'C_MARKETING', 'U_ALICE', 'pages last7d')).toMatch(/not installed in this workspace/);
      await quiet(box);
      expect(callsFor('T_LOOKOUT', calls)).toEqual([]);
      expect(
        one()
          .messages('C_MARKETING')
          .map((m) => m.text),
      ).not.toContain('after the uninstall');
    });

    it('5. answers a command from a workspace that never installed Lookout at its response_url: what is wrong and what to do', async () => {
      const from = box.logs.length;
      const said = await run(never(), 'C_NEVER', 'U_NEVA', 'pages last7d');
      expect(said).toMatch(/Lookout is not installed in this workspace/);
      expect(said).toMatch(/admin can install it/);
      expect(errorsSince(from)).toEqual([]);
    });

    it('6. answers Home buttons on the Home (a refusal, Disconnect, delete the data), with no error logged', async () => {
      const from = box.logs.length;
      /** Clicks a button on the person's Home and waits for the Home to show its notice. */
      const clickOnHome = async (user: string, actionId: string, blockId?: string) => {
        const before = other().workspace.home(user)!.publishes;
        const sent = await other().clickHome(user, actionId, blockId ? { blockId } : {});
        expect(sent.status).toBe(200);
        const home = await until(() => {
          const h = other().workspace.home(user)!;
          const blocks = h.view.blocks as Json[];
          return h.publishes > before && blocks.some((b) => b.block_id === 'notice') ? h : undefined;
        }, `${user}'s Home with the answer to ${actionId}`);
        return textsOf({ blocks: home.view.blocks as unknown[] }).join('\n');
      };
      // Erik may not change the connection: the button, forged onto his Home, is refused there.
      const erik = await openHome(other(), 'U_ERIK');
      (erik.view.blocks as Json[]).push({
        type: 'actions',
        block_id: 'forged',
        elements: [
          { type: 'button', action_id: ACTIONS.disconnect, text: { type: 'plain_text', text: 'x' }, value: 'x' },
        ],
      });
      expect(await clickOnHome('U_ERIK', ACTIONS.disconnect, 'forged')).toMatch(/Only an admin or owner/);
      expect(await box.lookout.features.workspace.service.connection('T_OTHER')).toBeDefined();
      await openHome(other(), 'U_DANA');
      expect(await clickOnHome('U_DANA', ACTIONS.disconnect)).toMatch(/Analytics disconnected: its key is deleted/);
      expect(await box.lookout.features.workspace.service.connection('T_OTHER')).toBeUndefined();
      expect(await clickOnHome('U_DANA', ACTIONS.purge)).toMatch(/Deleted everything Lookout kept of this workspace/);
      await quiet(box);
      expect(errorsSince(from)).toEqual([]);
    });

    it('refuses a forged or cookie-less OAuth redirect, logged at warn without a stack', async () => {
      const from = box.logs.length;
      const start = await fetch(`${box.lookout.base}/slack/install`, { redirect: 'manual' });
      const state = new URL(
        /id="add-to-slack" href="([^"]+)"/.exec(await start.text())![1]!.replace(/&amp;/g, '&'),
      ).searchParams.get('state')!;
      const redirects = [
        `code=forged&state=${encodeURIComponent(state)}`, // a real state, without the browser's cookie
        'code=forged&state=forged',
        'code=forged',
      ];
      for (const query of redirects) {
        const res = await fetch(`${box.lookout.base}/slack/oauth_redirect?${query}`, { redirect: 'manual' });
        expect(res.status, query).toBe(400);
        expect(await res.text(), query).toContain('Lookout was not installed');
      }
      expect(errorsSince(from)).toEqual([]);
      expect(logsSince(from).filter((l) => l.level === 40 && l.msg === 'an install failed')).toHaveLength(3);
      expect(box.logs.slice(from).join('\n')).not.toMatch(/\s{4}at /);
    });
  });
}
