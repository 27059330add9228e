import { createServer } from 'node:net';
import { ConfigError, distributedOf, keyringOf, loadConfig, slackOf, type Settings } from './config.js';
import { createLogger, type Logger } from './platform/log.js';
import { SecretError } from './platform/secrets.js';
import { DataDirError, inspectDataDir } from './platform/store/index.js';
import type { SandboxedOptions } from './sandboxed.js';

/** Entry: config → (the sandbox when there are no Slack credentials) → the app → listen. */
async function main(): Promise<void> {
  let config: Settings;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (process.argv.includes('--check-config')) {
    const problem = await startProblem(config);
    if (problem) {
      console.error(problem);
      process.exit(1);
    }
    console.log(
      slackOf(config) || distributedOf(config)
        ? 'configuration ok'
        : 'configuration ok: no Slack credentials, so the sandbox runs',
    );
    return;
  }
  const log = createLogger({ level: config.LOG_LEVEL });
  // Signals are handled from the first moment: one that arrives while starting stops what has started.
  const started = slackOf(config) || distributedOf(config) ? runForReal(config, log) : runSandbox(config, log);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took more than 10 s; exiting anyway');
      process.exit(1);
    }, 10_000);
    timer.unref();
    started
      .then((stop) => stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: String(error) }, 'error while shutting down');
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  try {
    await started;
  } catch (error) {
    if (error instanceof DataDirError || error instanceof SecretError) {
      console.error(error.message);
    } else {
      const problem = listenProblem(error as NodeJS.ErrnoException, config);
      if (!problem) throw error;
      console.error(problem);
    }
    process.exit(1);
  }
}

/** One line for an address the app cannot listen on, naming the setting; undefined for any other error. */
function listenProblem(
  error: NodeJS.ErrnoException & { port?: number; hostname?: string },
  config: Settings,
): string | undefined {
  const ops = error.port === config.OPS_PORT && config.OPS_PORT !== 0;
  if (error.code === 'EADDRINUSE') {
    const name = ops ? 'OPS_PORT' : 'PORT';
    return `${name} ${ops ? config.OPS_PORT : config.PORT} is already in use by another process: stop it, or set ${name} to a free port.`;
  }
  // Only OPS_HOST names an address to listen on: the Slack port listens on every interface.
  if (error.code === 'EADDRNOTAVAIL' || (error.syscall === 'getaddrinfo' && error.hostname === config.OPS_HOST)) {
    return `OPS_HOST ${config.OPS_HOST} is not an address of this machine: set OPS_HOST to one of its addresses (127.0.0.1 by default, 0.0.0.0 for every interface).`;
  }
  return undefined;
}

/** Whether nothing listens on `port` yet (checked as the app will listen: every interface, or `host`). */
function portIsFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** `port` when it is free (or 0), else 0 (any free port), saying so. */
async function freeOrAny(name: string, port: number, log: Logger, host?: string): Promise<number> {
  if (port === 0 || (await portIsFree(port, host))) return port;
  log.warn(
    { port },
    `${name === 'PORT' ? 'port' : name} ${port} is taken: the sandbox's ${name === 'PORT' ? 'app' : 'ops listener'} listens on a free port instead`,
  );
  return 0;
}

function storeOptions(config: Settings) {
  return config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : { dataDir: config.DATA_DIR };
}

function opsOf(config: Settings) {
  return { port: config.OPS_PORT, host: config.OPS_HOST, token: config.OPS_TOKEN };
}

async function runForReal(config: Settings, log: Logger): Promise<() => Promise<void>> {
  const distributed = distributedOf(config);
  const slack = distributed ?? slackOf(config)!;
  // Loaded here, after the configuration: the sandbox serves its page before it loads the app.
  const { startLookout } = await import('./compose.js');
  const lookout = await startLookout({
    // loadConfig requires the URL with Slack credentials.
    api: { baseUrl: config.ANALYTICS_API_URL!, apiKey: config.ANALYTICS_API_KEY ?? '' },
    slack,
    log,
    demo: false,
    port: config.PORT,
    ops: opsOf(config),
    store: storeOptions(config),
    encryption: keyringOf(config),
    settings: config,
  });
  const socket = 'appToken' in slack && slack.appToken;
  log.info(
    {
      mode: distributed ? 'distributed' : socket ? 'socket' : 'http',
      port: socket ? undefined : config.PORT,
      ops: lookout.ops.url,
      api: new URL(config.ANALYTICS_API_URL!).origin,
    },
    'Lookout is running against Slack',
  );
  return () => lookout.stop();
}

const NO_SANDBOX =
  'No Slack credentials, and this installation has no sandbox (it runs from a clone with the development dependencies: npm ci && npm start). To run against Slack set SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, ANALYTICS_API_URL and ANALYTICS_API_KEY (a distributed app: see docs/operations.md).';

/**
 * The sandbox: the package (packages/sandbox, a development dependency, in TypeScript) and
 * src/sandboxed.ts, which the build leaves out of dist/. It runs from a clone under tsx (npm
 * start); a production install has no package, and a build has neither it nor a way to load
 * TypeScript: for those, undefined.
 */
async function loadSandbox(load = { app: true }) {
  const missing = (error: unknown) => {
    const { code, message } = error as NodeJS.ErrnoException;
    return (
      (code === 'ERR_MODULE_NOT_FOUND' && /'@lookout\/sandbox'|sandboxed\.js/.test(message)) ||
      (code === 'ERR_UNKNOWN_FILE_EXTENSION' && message.includes('.ts'))
    );
  };
  try {
    const { startSandbox } = await import('@lookout/sandbox');
    if (load.app) await import('./sandboxed.js');
    return { startSandbox };
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** What would stop the start before anything runs, in one line: a data directory Lookout would refuse, or no sandbox to run. */
async function startProblem(config: Settings): Promise<string | undefined> {
  if (!config.DATABASE_URL) {
    try {
      inspectDataDir(config.DATA_DIR);
    } catch (error) {
      if (error instanceof DataDirError) return error.message;
      throw error;
    }
  }
  if (!slackOf(config) && !distributedOf(config) && !(await loadSandbox())) return NO_SANDBOX;
  return undefined;
}

async function runSandbox(config: Settings, log: Logger): Promise<() => Promise<void>> {
  const began = performance.now();
  // Loaded only here: a deployment with Slack credentials never loads the sandbox. The app's own
  // modules are loaded once the page is served (startApp), so its URL is printed first.
  const sandboxCode = await loadSandbox({ app: false });
  if (!sandboxCode) {
    console.error(NO_SANDBOX);
    process.exit(1);
  }
  // A laptop often has something on 3000 already: the sandbox takes a free port instead, and says so.
  // Like everything in the sandbox, the app listens on loopback (startSandbox's wiring says so).
  const port = await freeOrAny('PORT', config.PORT, log, '127.0.0.1');
  // The sandbox's ops listener is on loopback, whatever OPS_HOST says, like everything else in it.
  const ops = {
    ...opsOf(config),
    host: '127.0.0.1',
    port: await freeOrAny('OPS_PORT', config.OPS_PORT, log, '127.0.0.1'),
  };
  const encryption = keyringOf(config);
  const app: SandboxedOptions = {
    log,
    port,
    ops,
    store: storeOptions(config),
    // Unset, a key is made up for the run and kept in memory only.
    ...(encryption ? { encryption } : {}),
    settings: {
      ...config,
      // The sandbox scans for threats every 20 s unless told otherwise, so the first alert comes within a minute or two.
      ...(process.env.ALERT_SCAN_INTERVAL ? {} : { ALERT_SCAN_INTERVAL: 20_000 }),
    },
  };
  const appCode = () => import('./sandboxed.js');
  const sandbox = await sandboxCode.startSandbox({
    live: {},
    log,
    api: config.ANALYTICS_API_URL
      ? { baseUrl: config.ANALYTICS_API_URL, apiKey: config.ANALYTICS_API_KEY ?? '' }
      : undefined,
    slackPort: Number(process.env.SANDBOX_SLACK_PORT ?? 0),
    startApp: async (wiring) => (await appCode()).startSandboxed(app, wiring),
    early: {
      pageServed(slack) {
        // The demo accounts' keys are made up for this run (a real API's key is never among them): a person types them into the Home.
        const accounts = slack.teams.flatMap(({ workspace: { team } }) => {
          const account = slack.demoAccount(team.id);
          const connected = team.id === slack.workspace.team.id ? ' (connected once Lookout has started)' : '';
          return account ? [`    ${team.name}${connected}: ${account.baseUrl}, key ${account.apiKey}`] : [];
        });
        const demoLines = accounts.length
          ? `  Demo analytics accounts, for "Connect your analytics" in a workspace's Lookout Home (its page shows its own too):\n${accounts.join('\n')}\n`
          : '';
        console.log(
          `\n  Lookout sandbox: open ${slack.url}/ in a browser (the page waits for Lookout while it starts)\n${demoLines}`,
        );
      },
      ready: async (box) => (await appCode()).installWorkspaceOne(box),
    },
  });
  log.info(
    {
      api: sandbox.demo ? 'demo' : new URL(config.ANALYTICS_API_URL!).origin,
      app: sandbox.lookout.requestUrl,
      ops: sandbox.lookout.ops.url,
    },
    'no Slack credentials: running the sandbox',
  );
  console.log(
    `  Lookout has started (${((performance.now() - began) / 1000).toFixed(1)} s) and is installed in the sandbox's workspace.\n  Metrics and readiness: ${sandbox.lookout.ops.url}/metrics and /readyz\n`,
  );
  return () => sandbox.stop();
}

await main();
