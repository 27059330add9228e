/**
 * Lookout as `npm start` runs it inside the sandbox: a distributed app with an encryption key
 * made up for the run (kept in memory only), installed in workspace one through the OAuth flow
 * and connected to its demo account before the workspace's URL is printed; any other workspace
 * installs it with Add to Slack. main.ts and the browser tests start it the same way. It knows
 * the sandbox only by the shapes it is handed: the product never imports the sandbox.
 */
import { randomBytes } from 'node:crypto';
import { MIGRATIONS, startLookout, type Lookout, type LookoutOptions } from './compose.js';
import { REPORT_IDS } from './kernel/catalog.js';
import { RANGE_MENU } from './kernel/ranges.js';
import { trafficHint, type CommandCatalog } from './platform/feature.js';
import { keyring, type Keyring } from './platform/secrets.js';
import { InstallationRepo } from './platform/slack/installations.js';
import { inspectDataDir, openStore, type OpenDbOptions } from './platform/store/index.js';
import { ConnectionRepo } from './platform/tenancy/connections.js';

/** What the sandbox hands the app (`SandboxWiring`), as far as a distributed app needs it. */
export interface SandboxedWiring {
  api: { baseUrl: string };
  accounts: { teamId: string; baseUrl: string; apiKey: string }[];
  slack: { signingSecret: string; apiUrl: string };
  oauth: { clientId: string; clientSecret: string; stateSecret: string; authorizationUrl: string };
  demo: boolean;
  host: string;
}

export type SandboxedOptions = Omit<LookoutOptions, 'api' | 'slack' | 'demo' | 'host' | 'encryption'> & {
  /** The key that seals tokens and API keys: made up for the run unless given (LOOKOUT_ENCRYPTION_KEY). */
  encryption?: Keyring;
};

/**
 * What the sandbox's page suggests as a person types (the sandbox's `Suggestions`): Lookout's
 * commands, the words each takes first and what may follow, and examples to try.
 */
export interface SandboxedSuggestions {
  commands: {
    command: string;
    hint: string;
    description: string;
    words?: { word: string; detail: string; next?: { detail: string; words: string[] } }[];
  }[];
  examples: string[];
}

const EXAMPLES = [
  '/traffic sources last7d',
  '/traffic pages last30d page~/blog by duration',
  '/traffic countries all top 5',
  '/traffic visitors today',
];

/** The first words a `/traffic` sub-command's usage offers (`add|list|…`), if it starts with a choice. */
function choices(usage: string): string[] {
  const first = usage.split(' ')[0] ?? '';
  return first.includes('|') ? first.split('|') : [];
}

/** What the page suggests, made from what the features say of their commands and the reports' catalog. */
export function suggestionsOf(catalog: CommandCatalog): SandboxedSuggestions {
  const reports = REPORT_IDS.map((word) => ({
    word,
    detail: 'report',
    next: { detail: 'range', words: [...RANGE_MENU] },
  }));
  const subcommands = catalog.subcommands.map((s) => {
    const next = choices(s.usage);
    return {
      word: s.words[0],
      detail: s.usage,
      ...(next.length > 0 ? { next: { detail: s.words[0], words: next } } : {}),
    };
  });
  const help = {
    word: 'help',
    detail: 'how to use /traffic',
    next: {
      detail: 'help',
      words: ['reports', 'ranges', 'filters', 'sort', 'examples', ...subcommands.map((s) => s.word)],
    },
  };
  return {
    commands: catalog.commands.map((c) => ({
      command: c.command,
      hint: c.command === '/traffic' ? trafficHint(catalog) : c.usage,
      description: c.description,
      ...(c.command === '/traffic' ? { words: [...reports, ...subcommands, help] } : {}),
    })),
    examples: [
      ...EXAMPLES,
      ...subcommands.flatMap((s) => {
        const word = s.next?.words.find((w) => w === 'list' || w === 'status');
        return word ? [`/traffic ${s.word} ${word}`] : [];
      }),
      '/traffic help',
    ],
  };
}

export type SandboxedLookout = Lookout & {
  /** The app's base URL, e.g. http://127.0.0.1:3000. */
  base: string;
  oauthRedirectUrl: string;
  installUrl: string;
  /** Each workspace's demo account (only workspace one's with a real API). */
  accounts: SandboxedWiring['accounts'];
  suggestions: SandboxedSuggestions;
};

/**
 * The previous run's installations and connections, in a store kept between runs, are of an
 * offline Slack and demo accounts that are gone, sealed with a key that is gone: each
 * installation is marked left (its tokens dropped; its workspace's settings come back when it
 * installs again, as after any removal) and each connection removed.
 */
async function forgetPreviousRun(store: OpenDbOptions, keys: Keyring): Promise<void> {
  // A store in memory, or a data directory not made yet, holds no previous run.
  if (store.memory || (!store.databaseUrl && store.dataDir && inspectDataDir(store.dataDir) !== 'ready')) return;
  const opened = await openStore({ ...store, migrations: MIGRATIONS });
  const { db } = opened;
  try {
    const installations = new InstallationRepo(db, keys);
    const connections = new ConnectionRepo(db, keys);
    const { rows } = await db.query<{ team_id: string }>(
      'SELECT team_id FROM installations WHERE team_id IS NOT NULL UNION SELECT team_id FROM workspaces',
    );
    for (const { team_id } of rows) {
      await installations.uninstalled(team_id);
      await connections.remove(team_id);
    }
    await db.query('DELETE FROM installations WHERE team_id IS NULL');
  } finally {
    await opened.close();
  }
}

/** Starts Lookout as a distributed app against the sandbox's Slack and accounts (the sandbox's `startApp`). */
export async function startSandboxed(options: SandboxedOptions, wiring: SandboxedWiring): Promise<SandboxedLookout> {
  const encryption = options.encryption ?? keyring(randomBytes(32).toString('base64'));
  await forgetPreviousRun(options.store, encryption);
  const lookout = await startLookout({
    ...options,
    api: { baseUrl: wiring.api.baseUrl },
    slack: {
      signingSecret: wiring.slack.signingSecret,
      apiUrl: wiring.slack.apiUrl,
      oauth: {
        clientId: wiring.oauth.clientId,
        clientSecret: wiring.oauth.clientSecret,
        stateSecret: wiring.oauth.stateSecret,
        authorizationUrl: wiring.oauth.authorizationUrl,
      },
    },
    demo: wiring.demo,
    host: wiring.host,
    encryption,
    settings: {
      ...options.settings,
      ANALYTICS_API_ALLOWED_URLS: [
        ...(options.settings?.ANALYTICS_API_ALLOWED_URLS ?? []),
        ...wiring.accounts.map((a) => a.baseUrl),
      ],
    },
  });
  const base = lookout.requestUrl!.replace(/\/slack\/events$/, '');
  return Object.assign(lookout, {
    base,
    oauthRedirectUrl: `${base}/slack/oauth_redirect`,
    installUrl: `${base}/slack/install`,
    accounts: wiring.accounts.map((a) => ({ ...a })),
    suggestions: suggestionsOf(lookout.commands),
  });
}

/** A sandbox running the sandboxed Lookout: its offline Slack installs like a person in a browser. */
export interface SandboxedBox {
  slack: { installApp(teamId: string, userId: string): Promise<{ status: number; html: string }> };
  lookout: SandboxedLookout;
}

/**
 * Workspace one as `npm start` opens it: a person there installs Lookout (install page,
 * authorise screen, Allow, the redirect back to Bolt's callback) and connects it to the
 * workspace's demo account (the key tried before it is saved), as they would from the Home.
 */
export async function installWorkspaceOne(box: SandboxedBox, teamId = 'T_LOOKOUT', userId = 'U_ALICE') {
  const account = box.lookout.accounts.find((a) => a.teamId === teamId);
  if (!account) throw new Error(`the sandbox has no analytics account for ${teamId}`);
  const installed = await box.slack.installApp(teamId, userId);
  if (installed.status !== 200) throw new Error(`installing Lookout in ${teamId} ended with HTTP ${installed.status}`);
  const connected = await box.lookout.features.workspace.service.connect(
    teamId,
    undefined,
    userId,
    account.baseUrl,
    account.apiKey,
  );
  if (!connected.ok) throw new Error(`connecting ${teamId} to its analytics account: ${connected.problem}`);
}
