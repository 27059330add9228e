import { randomBytes } from 'node:crypto';
import { startSandbox, type SandboxOptions } from '@lookout/sandbox';
import { startLookout, type LookoutOptions } from '../../src/compose.js';
import { keyring } from '../../src/platform/secrets.js';
import type { SlackDriver } from '@lookout/sandbox/slack';
import { captureLogs } from './log-capture.js';
import { isProgressNote } from './answers.js';
import { textsOf } from './sandbox.js';
import { until } from './until.js';

/**
 * The sandbox with Lookout as a distributed app: installed by OAuth, each workspace connected
 * to its own demo account from the Home. Nothing is installed at first.
 */
export async function distributedSandbox(
  options: Partial<LookoutOptions> = {},
  sandbox: Pick<SandboxOptions<never>, 'slack'> = {},
) {
  const { logger, lines } = captureLogs('debug');
  const encryption = keyring(randomBytes(32).toString('base64'));
  const box = await startSandbox({
    log: logger,
    ...sandbox,
    startApp: async (wiring) => {
      const lookout = await startLookout({
        port: 0,
        store: { memory: true },
        demo: true,
        log: logger,
        ...options,
        host: wiring.host,
        api: { baseUrl: wiring.api.baseUrl },
        slack: { signingSecret: wiring.slack.signingSecret, apiUrl: wiring.slack.apiUrl, oauth: wiring.oauth },
        encryption,
        settings: {
          USER_RATE_LIMIT: 100_000,
          ANALYTICS_TIMEOUT_MS: 2_000,
          INSTALL_PRIVACY_URL: 'https://lookout.example/privacy',
          INSTALL_SUPPORT_URL: 'https://lookout.example/support',
          ANALYTICS_API_ALLOWED_URLS: wiring.accounts.map((a) => a.baseUrl),
          ...options.settings,
        },
      });
      const base = lookout.requestUrl!.replace('/slack/events', '');
      return Object.assign(lookout, {
        oauthRedirectUrl: `${base}/slack/oauth_redirect`,
        base,
        accounts: wiring.accounts,
      });
    },
  });
  return Object.assign(box, { logs: lines, encryption });
}

export type DistributedBox = Awaited<ReturnType<typeof distributedSandbox>>;

/** Until the Homes to refresh are published and nothing waits in the outbox: what an attempt set off has happened. */
export async function quiet(box: DistributedBox): Promise<void> {
  for (let round = 0; round < 2; round++) {
    await box.lookout.features.home.settled();
    await until(async () => {
      const { rows } = await box.lookout.store.db.query(
        "SELECT 1 FROM deliveries WHERE status IN ('pending', 'sending') LIMIT 1",
      );
      return rows.length === 0;
    }, 'the outbox to empty');
  }
}

/**
 * A person installs Lookout in `team` through the whole OAuth flow: the app's install page (its
 * state cookie), Slack's authorise page, Allow, the redirect back. Returns the page it ends on.
 */
export async function install(
  box: DistributedBox,
  team: string,
  user: string,
): Promise<{ status: number; html: string }> {
  const start = await fetch(`${box.lookout.base}/slack/install`, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await start.text();
  const href = /id="add-to-slack" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
  if (!href) throw new Error(`no Add to Slack link on the install page: ${page.slice(0, 300)}`);
  const authorize = new URL(href);
  authorize.searchParams.set('team', team);
  const consent = await (await fetch(authorize)).text();
  const request = /name="request" value="([^"]+)"/.exec(consent)?.[1];
  if (!request) throw new Error(`no request on the authorise page: ${consent.slice(0, 300)}`);
  const decided = await fetch(new URL('/oauth/v2/authorize', authorize), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, team, user, decision: 'allow' }).toString(),
  });
  const back = decided.headers.get('location');
  if (!back) throw new Error(`the authorise page did not redirect (${decided.status})`);
  const done = await fetch(back, { headers: { cookie }, redirect: 'manual' });
  return { status: done.status, html: await done.text() };
}

/** Types a command in a workspace and waits for the answer its person sees. */
export async function run(slack: SlackDriver, channel: string, user: string, text: string): Promise<string> {
  const answer = await answerTo(slack, channel, user, async () => {
    const sent = await slack.slash(channel, user, text);
    if (sent.status !== 200) throw new Error(`the command got HTTP ${sent.status}`);
  });
  return [answer.text ?? '', ...textsOf(answer)].join('\n');
}

/** The first new (or newly changed) message `user` sees in `channel` after `send`, past any progress note. */
export async function answerTo(slack: SlackDriver, channel: string, user: string, send: () => Promise<unknown>) {
  const key = (m: { ts: string; blocks?: unknown }) => `${m.ts}:${JSON.stringify(m.blocks)}`;
  const before = new Set(slack.messages(channel, { user }).map(key));
  await send();
  return slack.waitForMessage(
    channel,
    (m) => !before.has(key(m)) && m.user !== user && (!m.ephemeralTo || m.ephemeralTo === user) && !isProgressNote(m),
  );
}

/** Opens the person's Home tab and waits for it to be published again. */
export async function openHome(slack: SlackDriver, user: string) {
  const before = slack.workspace.home(user)?.publishes ?? 0;
  await slack.event('app_home_opened', user, { tab: 'home', channel: `D_${user}` });
  return until(() => {
    const home = slack.workspace.home(user);
    return home && home.publishes > before ? home : undefined;
  }, `${user}'s Home`);
}

/**
 * The person connects their workspace's analytics from the Home. `outcome` is what the form
 * ends on: `connected`, or the problem Lookout showed (beside a field at once, or in a field's
 * hint on the form shown again after a slow check).
 */
export async function connect(slack: SlackDriver, user: string, url: string, key: string) {
  await openHome(slack, user);
  const before = new Set(slack.openViews(user).map((v) => v.id));
  await slack.clickHome(user, 'workspace.connect.open', { blockId: 'workspace.actions' });
  // The form opens after the click's ack: a form left open by an earlier try is not it.
  const form = await slack.waitFor(() => slack.openViews(user).find((v) => !before.has(v.id)));
  if (form.callback_id !== 'workspace.connect') throw new Error(`opened ${form.callback_id}, not the connect form`);
  const answer = await slack.submit(form, { url, key });
  const json = answer.json as { response_action?: string; errors?: Record<string, string> } | undefined;
  if (json?.response_action === 'errors') return { answer, outcome: Object.values(json.errors ?? {}).join(' ') };
  if (json?.response_action !== 'update') return { answer, outcome: 'connected' };
  // The form becomes "checking" once the submission is answered, then its outcome: connected, or the
  // form again with the problem in a field's hint. Until one of those, it may still be the form as submitted.
  const problemsOf = (view: { blocks: unknown[] }) =>
    view.blocks
      .map((b) => (b as { hint?: { text?: string } }).hint?.text ?? '')
      .filter((h) => h.startsWith('⚠️'))
      .join(' ');
  const shown = await until(() => {
    const top = slack.openViews(user).at(-1);
    if (!top || top.id !== form.id) return undefined;
    return top.callback_id === 'workspace.connect.done' || problemsOf(top) ? top : undefined;
  }, 'the outcome of a slow check on the form');
  if (shown.callback_id === 'workspace.connect.done') return { answer, outcome: 'connected', shown };
  return { answer, outcome: problemsOf(shown), shown };
}
