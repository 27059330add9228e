import { startLookout, type Lookout, type LookoutOptions } from '../../src/compose.js';
import { startSandbox, type Sandbox as SandboxOf, type SandboxOptions } from '../../src/sandbox/start.js';
import { captureLogs } from './log-capture.js';

export type Sandbox = SandboxOf<Lookout>;

/** The sandbox's own settings, and the app's (the store defaults to PGlite in memory). */
export type TestSandboxOptions = Omit<SandboxOptions<Lookout>, 'startApp'> &
  Partial<Omit<LookoutOptions, 'api' | 'slack' | 'demo' | 'log'>> & { apiTimeoutMs?: number };

/**
 * The offline Slack and the demo API, with Lookout wired to both, as main.ts does it. The
 * per-person request limit is lifted unless a test sets it: scenarios send hundreds of
 * commands as one person.
 */
export function startTestSandbox(options: TestSandboxOptions): Promise<Sandbox> {
  const { log, api, slackPort, demoFaults, slack, apiTimeoutMs, socketMode, ...app } = options;
  return startSandbox({
    log,
    api,
    slackPort,
    demoFaults,
    slack,
    ...(socketMode ? { socketMode } : {}),
    startApp: (wiring) => startLookout({ port: 0, store: { memory: true }, ...app, limits: { userRequests: 100_000, ...app.limits }, ...wiring, api: { ...wiring.api, timeoutMs: apiTimeoutMs }, log }),
  });
}

export const USER = 'U_ALICE';
export const CHANNEL = 'C_MARKETING';

export async function sandbox(options: Partial<TestSandboxOptions> = {}): Promise<Sandbox & { logs: string[] }> {
  const { logger, lines } = captureLogs('debug');
  const box = await startTestSandbox({ log: logger, apiTimeoutMs: 2000, ...options });
  return Object.assign(box, { logs: lines });
}

type Json = Record<string, unknown>;

/** Every piece of mrkdwn or plain text in a message's blocks. */
export function textsOf(message: { blocks?: readonly unknown[] }): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const obj = node as Json;
    if ((obj.type === 'mrkdwn' || obj.type === 'plain_text' || obj.type === 'raw_text') && typeof obj.text === 'string') out.push(obj.text);
    for (const value of Object.values(obj)) walk(value);
  };
  walk(message.blocks);
  return out;
}

/** Only the mrkdwn texts: the ones Slack would interpret. */
export function mrkdwnOf(message: { blocks?: readonly unknown[] }): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const obj = node as Json;
    if (obj.type === 'mrkdwn' && typeof obj.text === 'string') out.push(obj.text);
    for (const value of Object.values(obj)) walk(value);
  };
  walk(message.blocks);
  return out;
}

/** The table block's rows as text, header first; [] when there is no table. */
export function tableOf(message: { blocks?: readonly unknown[] }): string[][] {
  const table = (message.blocks ?? []).find((b) => ['table', 'data_table'].includes((b as Json).type as string)) as { rows: { text: string }[][] } | undefined;
  return table ? table.rows.map((row) => row.map((cell) => cell.text)) : [];
}

export function headerOf(message: { blocks?: readonly unknown[] }): string | undefined {
  const header = (message.blocks ?? []).find((b) => (b as Json).type === 'header') as { text: { text: string } } | undefined;
  return header?.text.text;
}

export function hasAction(message: { blocks?: readonly unknown[] }, actionId: string): boolean {
  return JSON.stringify(message.blocks ?? []).includes(`"action_id":"${actionId}"`);
}
