/**
 * Tenant isolation: a person in T_OTHER, with nothing but their own workspace's Slack, aims
 * every entry point at T_LOOKOUT's digest, watch, alert subscription and delivery (slash
 * commands naming their ids, Home and message buttons carrying them, the digest form, the Home
 * opened, posts going out). A crossing is anything of T_LOOKOUT's that changes, is shown in
 * T_OTHER, or is posted in T_LOOKOUT while T_OTHER acts: there are none, on each store.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACTIONS, HOME_START } from '../../../src/features/home/blocks.js';
import { DIGEST_ACTIONS } from '../../../src/features/digests/blocks.js';
import { WATCH_ACTIONS } from '../../../src/features/watches/blocks.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { type OpenDbOptions } from '../../../src/platform/store/db.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import {
  answerTo,
  connect,
  distributedSandbox,
  install,
  openHome,
  quiet,
  run,
  type DistributedBox,
} from '../../support/distributed.js';
import { textsOf } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

type Json = Record<string, unknown>;

const ONE_CHANNELS = ['C_GENERAL', 'C_MARKETING', 'C_SECURITY'];
const ONE_PEOPLE = ['U_ALICE', 'U_BOB', 'U_CAROL'];

if (!TEST_DATABASE_URL) console.warn('tenant isolation on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`tenant isolation [${kind}]`, () => {
    const schema = `t_isolation_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: DistributedBox;
    const one = () => box.slack.team('T_LOOKOUT');
    const other = () => box.slack.team('T_OTHER');
    const ids = { digest: 0, watch: 0, delivery: 0, ownDigest: 0, ownWatch: 0 };

    beforeAll(async () => {
      box = await distributedSandbox({ store, scheduler: false, settings: { HOME_REFRESH_DELAY: 50 } });
      for (const [team, user, channel] of [
        ['T_LOOKOUT', 'U_ALICE', 'C_MARKETING'],
        ['T_OTHER', 'U_DANA', 'C_OTHER_GENERAL'],
      ] as const) {
        const slack = box.slack.team(team);
        expect((await install(box, team, user)).status).toBe(200);
        const account = box.lookout.accounts.find((a) => a.teamId === team)!;
        const { outcome } = await connect(slack, user, account.baseUrl, account.apiKey);
        if (outcome !== 'connected') throw new Error(`could not connect ${team}: ${outcome}`);
        expect(await run(slack, channel, user, 'pages last7d')).toContain('Pages');
      }
      // T_LOOKOUT's: a digest, a watch, threat alerts in #security, and a delivery that failed.
      await run(one(), 'C_MARKETING', 'U_ALICE', 'digest add #marketing daily 09:00 sources');
      await run(one(), 'C_MARKETING', 'U_ALICE', 'watch visits drops 40% vs last week');
      await run(one(), 'C_SECURITY', 'U_ALICE', 'alerts on');
      const db = box.lookout.store.db;
      ids.digest = await idOf("SELECT id FROM digests WHERE team_id = 'T_LOOKOUT'");
      ids.watch = await idOf("SELECT id FROM watches WHERE team_id = 'T_LOOKOUT'");
      const { rows: subs } = await db.query("SELECT 1 FROM alert_subscriptions WHERE team_id = 'T_LOOKOUT'");
      expect(subs).toHaveLength(1);
      ids.delivery = await idOf(
        `INSERT INTO deliveries (kind, channel_id, message, team_id, status, error, next_at, deadline, created_at)
         VALUES ('notice', 'C_MARKETING', '{"text":"T_LOOKOUT only","blocks":[]}', 'T_LOOKOUT', 'failed', 'channel_not_found',
                 now(), now() + interval '1 hour', now())
         RETURNING id`,
      );
      // T_OTHER's own, so that its person has the buttons to forge.
      await run(other(), 'C_OTHER_GENERAL', 'U_DANA', 'digest add daily 10:00 pages');
      await run(other(), 'C_OTHER_GENERAL', 'U_DANA', 'watch visits drops 40% vs last week');
      ids.ownDigest = await idOf("SELECT id FROM digests WHERE team_id = 'T_OTHER'");
      ids.ownWatch = await idOf("SELECT id FROM watches WHERE team_id = 'T_OTHER'");
      await quiet(box);
    }, 60_000);

    afterAll(async () => {
      await box?.stop();
      if (kind === 'postgres') await dropSchemas(schema);
    });

    async function idOf(sql: string): Promise<number> {
      const { rows } = await box.lookout.store.db.query<{ id: string | number }>(sql);
      expect(rows).toHaveLength(1);
      return Number(rows[0]!.id);
    }

    /** Every row of every table that names its workspace, T_LOOKOUT's, as text. */
    async function lookoutRows(): Promise<string> {
      const db = box.lookout.store.db;
      const { rows: tables } = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = 'team_id' ORDER BY table_name`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['digests', 'watches', 'deliveries']));
      const out: Record<string, unknown> = {};
      for (const { table_name } of tables) {
        const { rows } = await db.query(`SELECT * FROM ${table_name} WHERE team_id = 'T_LOOKOUT'`);
        out[table_name] = rows.map((r) => JSON.stringify(r)).sort();
      }
      return JSON.stringify(out);
    }

    /** What T_LOOKOUT's people see: every message in its channels, and each Home's publishes. */
    function lookoutSlack(): string {
      const slack = one();
      return JSON.stringify([
        ONE_CHANNELS.map((c) => slack.messages(c).map((m) => [m.ts, m.text, m.blocks])),
        ONE_PEOPLE.map((u) => slack.workspace.home(u)?.publishes ?? 0),
      ]);
    }

    /** What in a T_OTHER answer would be T_LOOKOUT's. */
    function leaks(shown: string): string[] {
      const account = box.lookout.accounts.find((a) => a.teamId === 'T_LOOKOUT')!;
      const names = ONE_CHANNELS.map((c) => `#${one().workspace.channel(c)!.name}`);
      const words = [...ONE_CHANNELS, ...ONE_PEOPLE, 'T_LOOKOUT', account.baseUrl, account.apiKey, ...names];
      const found = words.filter((w) => shown.includes(w));
      if (new RegExp(`#${ids.digest}\\b[^\\n]*(sources|09:00)`).test(shown)) found.push(`digest #${ids.digest}`);
      if (new RegExp(`#${ids.watch}\\b[^\\n]*(drops|40%)`).test(shown) && !shown.includes(`#${ids.ownWatch}`))
        found.push(`watch #${ids.watch}`);
      return found;
    }

    const crossings: string[] = [];

    /** One attempt from T_OTHER: T_LOOKOUT's rows and Slack unchanged, and T_OTHER shown nothing of T_LOOKOUT's. */
    async function attempt(name: string, act: () => Promise<string>): Promise<string> {
      const rows = await lookoutRows();
      const seen = lookoutSlack();
      const shown = await act();
      await quiet(box);
      if ((await lookoutRows()) !== rows) crossings.push(`${name}: changed T_LOOKOUT's rows`);
      if (lookoutSlack() !== seen) crossings.push(`${name}: reached T_LOOKOUT's Slack`);
      for (const leak of leaks(shown)) crossings.push(`${name}: showed ${leak}`);
      return shown;
    }

    it('refuses slash commands in T_OTHER that name T_LOOKOUT’s digest, watch and channel', async () => {
      const before = await lookoutRows();
      const commands = [
        `digest pause ${ids.digest}`,
        `digest resume ${ids.digest}`,
        `digest preview ${ids.digest}`,
        `digest edit ${ids.digest}`,
        `digest remove ${ids.digest}`,
        `watch mute ${ids.watch}`,
        `watch unmute ${ids.watch}`,
        `watch pause ${ids.watch}`,
        `watch remove ${ids.watch}`,
        `alerts off <#C_SECURITY>`,
        `alerts off <#C_SECURITY|security>`,
        'digest list all',
        'watch list all',
        'alerts status',
      ];
      for (const command of commands) {
        const shown = await attempt(`/traffic ${command}`, async () => {
          const views = other().openViews('U_DANA').length;
          const said = await run(other(), 'C_OTHER_GENERAL', 'U_DANA', command);
          return [
            said,
            ...other()
              .openViews('U_DANA')
              .slice(views)
              .map((v) => JSON.stringify(v)),
          ].join('\n');
        });
        expect(shown.length, command).toBeGreaterThan(0);
      }
      expect(crossings).toEqual([]);
      expect(await lookoutRows()).toBe(before);
    });

    it('refuses Home buttons in T_OTHER carrying T_LOOKOUT’s ids', async () => {
      const forged: [string, string][] = [
        [HOME_ACTIONS.pauseDigest, String(ids.digest)],
        [HOME_ACTIONS.resumeDigest, String(ids.digest)],
        [HOME_ACTIONS.previewDigest, String(ids.digest)],
        [HOME_ACTIONS.pauseWatch, String(ids.watch)],
        [HOME_ACTIONS.resumeWatch, String(ids.watch)],
        [HOME_ACTIONS.muteWatch, String(ids.watch)],
        [HOME_ACTIONS.unmuteWatch, String(ids.watch)],
        [HOME_ACTIONS.previewWatch, String(ids.watch)],
        [HOME_ACTIONS.retry, String(ids.delivery)],
        [HOME_START.alertsOff, 'C_SECURITY'],
      ];
      for (const [actionId, value] of forged) {
        await attempt(`Home ${actionId} ${value}`, async () => {
          const home = await openHome(other(), 'U_DANA');
          const blocks = home.view.blocks as Json[];
          blocks.push({
            type: 'actions',
            block_id: 'forged',
            elements: [{ type: 'button', action_id: actionId, text: { type: 'plain_text', text: 'x' }, value }],
          });
          const published = home.publishes;
          const views = other().openViews('U_DANA').length;
          const answer = await other().clickHome('U_DANA', actionId, { blockId: 'forged' });
          expect(answer.status).toBe(200);
          const again = await until(() => {
            const h = other().workspace.home('U_DANA')!;
            return h.publishes > published ? h : undefined;
          }, `U_DANA's Home after ${actionId}`);
          return [
            JSON.stringify(answer.body ?? ''),
            JSON.stringify(again.view),
            ...other()
              .openViews('U_DANA')
              .slice(views)
              .map((v) => JSON.stringify(v)),
          ].join('\n');
        });
      }
      expect(crossings).toEqual([]);
    });

    it('refuses message buttons in T_OTHER carrying T_LOOKOUT’s ids', async () => {
      const forged: [string, string, number][] = [
        ['digest list', DIGEST_ACTIONS.pause, ids.digest],
        ['digest list', DIGEST_ACTIONS.preview, ids.digest],
        ['digest list', DIGEST_ACTIONS.edit, ids.digest],
        ['digest list', DIGEST_ACTIONS.remove, ids.digest],
        ['watch list', WATCH_ACTIONS.pause, ids.watch],
        ['watch list', WATCH_ACTIONS.remove, ids.watch],
      ];
      for (const [command, actionId, id] of forged) {
        await attempt(`${command} ${actionId} ${id}`, async () => {
          const list = await answerTo(other(), 'C_OTHER_GENERAL', 'U_DANA', () =>
            other().slash('C_OTHER_GENERAL', 'U_DANA', command),
          );
          let swapped = 0;
          const swap = (node: unknown): void => {
            if (Array.isArray(node)) return node.forEach(swap);
            if (!node || typeof node !== 'object') return;
            const el = node as Json;
            if (el.action_id === actionId && typeof el.value === 'string') {
              el.value = el.value.replace(/\d+/, String(id));
              swapped++;
            }
            Object.values(el).forEach(swap);
          };
          swap(list.blocks);
          expect(swapped, `${actionId} in the answer to ${command}`).toBe(1);
          const views = other().openViews('U_DANA').length;
          const answer = await answerTo(other(), 'C_OTHER_GENERAL', 'U_DANA', () =>
            other().click({ channel: 'C_OTHER_GENERAL', ts: list.ts }, actionId, undefined, { user: 'U_DANA' }),
          );
          return [
            answer.text ?? '',
            ...textsOf(answer),
            ...other()
              .openViews('U_DANA')
              .slice(views)
              .map((v) => JSON.stringify(v)),
          ].join('\n');
        });
      }
      expect(crossings).toEqual([]);
    });

    it('refuses the digest form submitted in T_OTHER for T_LOOKOUT’s digest or channel', async () => {
      // A new digest posting in T_LOOKOUT's #marketing: T_OTHER saves nothing either (the form acks, then refuses).
      const othersBefore = (await box.lookout.store.digests.listAll('T_OTHER')).length;
      await attempt('digest form, channel C_MARKETING', async () => {
        const form = await openForm('digest add');
        const answer = await other().submit(form, { channel: 'C_MARKETING', reports: ['sources'] });
        return JSON.stringify(answer.body ?? '');
      });
      expect((await box.lookout.store.digests.listAll('T_OTHER')).length).toBe(othersBefore);
      // T_OTHER's own digest's form, its private_metadata naming T_LOOKOUT's digest.
      await attempt('digest form, private_metadata of T_LOOKOUT’s digest', async () => {
        const form = await openForm(`digest edit ${ids.ownDigest}`);
        const metadata = JSON.parse(form.private_metadata) as Json;
        expect(metadata.id).toBe(ids.ownDigest);
        form.private_metadata = JSON.stringify({ ...metadata, id: ids.digest });
        const answer = await other().submit(form);
        return JSON.stringify(answer.body ?? '');
      });
      expect(crossings).toEqual([]);
    });

    it('shows T_OTHER’s Home none of T_LOOKOUT’s digests, watches, alerts or deliveries', async () => {
      const shown = await attempt('app_home_opened', async () =>
        JSON.stringify((await openHome(other(), 'U_DANA')).view),
      );
      expect(shown).toContain(`#${ids.ownDigest}`);
      expect(shown).not.toContain(`#${ids.digest}*`);
      expect(shown).not.toContain(`#${ids.watch}*`);
      expect(crossings).toEqual([]);
    });

    it('posts T_OTHER’s deliveries with T_OTHER’s token in T_OTHER only', async () => {
      const enqueue = (channelId: string, text: string) =>
        box.lookout.store.deliveries.enqueue({
          team: 'T_OTHER',
          subject: NOTICE,
          channelId,
          message: { text, blocks: [] },
          expiresInMs: 3_600_000,
        });
      const finished = (id: number) =>
        until(async () => {
          const d = await box.lookout.store.deliveries.get(id);
          return d && d.status !== 'pending' && d.status !== 'sending' ? d : undefined;
        }, `delivery ${id} to finish`);
      await attempt('deliveries', async () => {
        const own = await enqueue('C_OTHER_GENERAL', 'for T_OTHER');
        // One of T_OTHER's aimed at T_LOOKOUT's channel: Slack has no such channel for T_OTHER's token.
        const aimed = await enqueue('C_MARKETING', 'aimed at T_LOOKOUT');
        box.lookout.deliveries.wake();
        expect(await finished(own)).toMatchObject({ status: 'posted' });
        expect(await finished(aimed)).toMatchObject({ status: 'failed' });
        expect(
          other()
            .messages('C_OTHER_GENERAL')
            .map((m) => m.text),
        ).toContain('for T_OTHER');
        return '';
      });
      expect(crossings).toEqual([]);
    });

    /** The T_OTHER person's form from a command, open. */
    /** The form `command` opens: one not open before (a form submitted just before may still be closing). */
    async function openForm(command: string) {
      const before = new Set(
        other()
          .openViews('U_DANA')
          .map((v) => v.id),
      );
      await other().slash('C_OTHER_GENERAL', 'U_DANA', command);
      return other().waitFor(() =>
        other()
          .openViews('U_DANA')
          .find((v) => !before.has(v.id)),
      );
    }
  });
}
