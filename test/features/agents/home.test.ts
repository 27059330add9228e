/**
 * "Connect an AI agent" on the App Home, as a person in the offline Slack: a token is created
 * from a form that shows it once (the store and the logs never hold it), listed, and revoked;
 * a Revoke button carrying another person's token is refused and changes nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ACTIONS, nameModal, TOKEN_SHOWN_VIEW, TOKEN_VIEW } from '../../../src/features/agents/home.js';
import type { OpenDbOptions } from '../../../src/platform/store/db.js';
import { validateHomeView, validateView } from '../../../src/slack-rules/validate.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import { mrkdwnOf, sandbox, textsOf, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

type Box = Sandbox & { logs: string[] };
type Json = Record<string, unknown>;
type Home = { view: { blocks: unknown[] }; publishes: number };

const TEAM = 'T_LOOKOUT';
const TOKEN = /lka_[A-Za-z0-9_-]{43}/g;

if (!TEST_DATABASE_URL) console.warn('agent tokens on the Home, PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`Connect an AI agent, on the Home [${kind}]`, () => {
    const schema = `t_agent_home_${randomBytes(4).toString('hex')}`;
    const store: OpenDbOptions = kind === 'pglite' ? { memory: true } : { databaseUrl: TEST_DATABASE_URL, schema };
    let box: Box;
    const tokens = () => box.lookout.features.agents.tokens;
    const homeOf = (user: string) => box.slack.workspace.home(user) as unknown as Home | undefined;
    const text = (home: Home) => mrkdwnOf({ blocks: home.view.blocks }).join('\n');

    beforeAll(async () => {
      box = await sandbox({ store, scheduler: false, settings: { HOME_REFRESH_DELAY: 50 } });
    });
    afterAll(async () => {
      await box?.stop();
      await dropSchemas(schema);
    });

    async function openHome(user: string): Promise<Home> {
      const before = homeOf(user)?.publishes ?? 0;
      await box.slack.event('app_home_opened', user, { tab: 'home', channel: `D_${user}` });
      return until(() => {
        const home = homeOf(user);
        return home && home.publishes > before ? home : undefined;
      }, `${user}'s Home`);
    }

    /** Clicks a button on the person's Home and waits for the Home published with its answer at the top. */
    async function clickOnHome(user: string, actionId: string, blockId: string): Promise<Home> {
      const before = homeOf(user)!.publishes;
      expect((await box.slack.clickHome(user, actionId, { blockId })).status).toBe(200);
      return until(() => {
        const home = homeOf(user)!;
        const noticed = (home.view.blocks as Json[]).some((b) => b.block_id === 'notice');
        return home.publishes > before && noticed ? home : undefined;
      }, `${user}'s Home with the answer to ${actionId}`);
    }

    /** "Create a token" on the Home, a name typed into its form: the form as the submission left it. */
    async function createToken(user: string, name: string) {
      await openHome(user);
      const before = new Set(box.slack.openViews(user).map((v) => v.id));
      expect((await box.slack.clickHome(user, AGENT_ACTIONS.create, { blockId: 'agents' })).status).toBe(200);
      const form = await box.slack.waitFor(() => box.slack.openViews(user).find((v) => !before.has(v.id)));
      expect(form.callback_id).toBe(TOKEN_VIEW);
      const answer = await box.slack.submit(form, { name });
      return { answer, shown: box.slack.openViews(user).find((v) => v.id === form.id) };
    }

    it('shows the section on the Home: what it is, where agents connect, and a button to create a token', async () => {
      const home = await openHome('U_ALICE');
      expect(validateHomeView({ type: 'home', blocks: home.view.blocks })).toEqual({ ok: true });
      const shown = textsOf({ blocks: home.view.blocks }).join('\n');
      expect(shown).toContain('Connect an AI agent');
      expect(shown).toContain("Claude Code, Cursor or any MCP client can ask Lookout's figures as you");
      expect(shown).toContain('`/mcp`');
      expect(shown).toContain('Create a token');
      expect(shown).toContain('No tokens yet');
    });

    it('refuses a name of only spaces beside the field, and makes no token', async () => {
      const { answer } = await createToken('U_ALICE', '   ');
      expect(validateView(nameModal())).toEqual({ ok: true });
      expect(answer.json).toMatchObject({
        response_action: 'errors',
        errors: { name: expect.stringContaining('name') },
      });
      expect(await tokens().list(TEAM, 'U_ALICE')).toEqual([]);
      await box.slack.closeView(box.slack.openViews('U_ALICE').at(-1)!);
    });

    let token = '';
    it('creates a token, shows it once in the updated form, and keeps only its hash: never in the table nor the logs', async () => {
      const logsFrom = box.logs.length;
      const { answer, shown } = await createToken('U_ALICE', 'Laptop agent <!channel> *x*');
      expect(answer.json).toMatchObject({ response_action: 'update', view: { callback_id: TOKEN_SHOWN_VIEW } });
      expect(shown?.callback_id).toBe(TOKEN_SHOWN_VIEW);
      expect(validateView((answer.json as { view: unknown }).view)).toEqual({ ok: true });
      const json = JSON.stringify(shown);
      const found = json.match(TOKEN) ?? [];
      expect(found).toHaveLength(1);
      token = found[0]!;
      const rich = shown!.blocks.find((b) => b.type === 'rich_text') as Json;
      expect(JSON.stringify(rich)).toContain(token);
      const words = textsOf({ blocks: shown!.blocks }).join('\n');
      expect(words).toContain("It is shown only now: copy it into your agent's configuration");
      expect(words).toContain('Authorization: Bearer <token>');
      // What the person typed is shown, never acted on.
      expect(words).toContain('&lt;!channel&gt;');
      expect(words).not.toContain('<!channel>');

      const { rows } = await box.lookout.store.db.query<Json>('SELECT * FROM agent_tokens');
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(token.slice(4));
      const sha = createHash('sha256').update(token);
      const digest = sha.digest();
      expect([digest.toString('hex'), digest.toString('base64url'), digest.toString('base64')]).toContain(
        rows[0]!.token_hash,
      );
      expect(rows[0]).toMatchObject({ team_id: TEAM, user_id: 'U_ALICE', name: 'Laptop agent <!channel> *x*' });

      // The Home lists it (published again after the change), never used yet, and never shows the token.
      const home = await until(() => {
        const h = homeOf('U_ALICE');
        return h && text(h).includes('Laptop agent') ? h : undefined;
      }, "the new token on Alice's Home");
      expect(text(home)).toMatch(/:key: Laptop agent &lt;!channel&gt; \*x\* · created .+ · last used never · expires /);
      expect(JSON.stringify(home.view)).not.toContain(token);
      await box.slack.closeView(shown!);

      expect(await tokens().verify(token, new Date())).toMatchObject({ team: TEAM, user: 'U_ALICE' });
      expect(box.logs.slice(logsFrom).join('\n')).toContain('agent token created');
      expect(box.logs.join('\n')).not.toContain(token);
      expect(box.logs.join('\n')).not.toContain(token.slice(4));
    });

    it('lists it with its last use, and nobody else sees it', async () => {
      const home = await openHome('U_ALICE');
      expect(text(home)).toMatch(
        /:key: Laptop agent &lt;!channel&gt; \*x\* · created .+ · last used (?!never).+ · expires /,
      );
      const bob = await openHome('U_BOB');
      expect(text(bob)).not.toContain('Laptop agent');
      expect(text(bob)).toContain('No tokens yet');
    });

    it("refuses a Revoke button forged to carry another person's token, and changes nothing", async () => {
      const { shown } = await createToken('U_BOB', 'Cursor');
      const bobs = (JSON.stringify(shown).match(TOKEN) ?? [])[0]!;
      await box.slack.closeView(shown!);
      const [listed] = await tokens().list(TEAM, 'U_BOB');
      expect(listed).toMatchObject({ name: 'Cursor' });

      const home = await openHome('U_ALICE');
      home.view.blocks.push({
        type: 'actions',
        block_id: 'forged',
        elements: [
          {
            type: 'button',
            action_id: AGENT_ACTIONS.revoke,
            text: { type: 'plain_text', text: 'Revoke' },
            value: String(listed!.id),
          },
        ],
      });
      const answered = await clickOnHome('U_ALICE', AGENT_ACTIONS.revoke, 'forged');
      expect(textsOf({ blocks: answered.view.blocks }).join('\n')).toContain('That token is not one of yours');
      expect(await tokens().list(TEAM, 'U_BOB')).toEqual([listed]);
      expect(await tokens().verify(bobs, new Date())).toMatchObject({ team: TEAM, user: 'U_BOB' });
      expect(await tokens().verify(token, new Date())).toMatchObject({ user: 'U_ALICE' });
      expect(box.logs.join('\n')).not.toContain(bobs);
    });

    it('revokes it from the Home, behind a confirmation: the Home says so, the list drops it, and the token is refused', async () => {
      const [mine] = await tokens().list(TEAM, 'U_ALICE');
      const home = await openHome('U_ALICE');
      const row = (home.view.blocks as Json[]).find((b) => b.block_id === `agents.token-${mine!.id}`);
      expect(row?.accessory).toMatchObject({
        action_id: AGENT_ACTIONS.revoke,
        confirm: { title: { text: 'Revoke this token?' } },
      });
      const answered = await clickOnHome('U_ALICE', AGENT_ACTIONS.revoke, `agents.token-${mine!.id}`);
      expect(textsOf({ blocks: answered.view.blocks }).join('\n')).toContain('Token revoked');
      expect(text(answered)).not.toContain('Laptop agent');
      expect(text(answered)).toContain('No tokens yet');
      expect(await tokens().verify(token, new Date())).toBeUndefined();
      expect(await tokens().list(TEAM, 'U_ALICE')).toEqual([]);
    });
  });
}
