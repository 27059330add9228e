import { randomBytes } from 'node:crypto';
import { startSandbox, type SandboxOptions } from '@lookout/sandbox';
import { startLookout, type LookoutOptions } from '../../src/compose.js';
import { keyring } from '../../src/platform/secrets.js';
import { captureLogs } from './log-capture.js';

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
        limits: { userRequests: 100_000, ...options.limits },
        api: { baseUrl: wiring.api.baseUrl, timeoutMs: 2_000 },
        slack: {
          signingSecret: wiring.slack.signingSecret,
          apiUrl: wiring.slack.apiUrl,
          oauth: {
            ...wiring.oauth,
            privacyUrl: 'https://lookout.example/privacy',
            supportUrl: 'https://lookout.example/support',
          },
        },
        encryption,
        workspaces: { allowedUrls: wiring.accounts.map((a) => a.baseUrl), ...options.workspaces },
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
