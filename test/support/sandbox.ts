import { LEVEL_COLOURS, type Level } from '../../src/platform/slack/kit/colour.js';
import { startLookout, type Lookout, type LookoutOptions } from '../../src/compose.js';
import { suggestionsOf } from '../../src/sandboxed.js';
import { startSandbox, type Sandbox as SandboxOf, type SandboxOptions } from '@lookout/sandbox';
import type { View } from '@lookout/sandbox/slack';
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
    // The page's demo controls make their spikes on the app's clock.
    ...(app.now ? { now: app.now } : {}),
    // The page's composer suggests what `npm start` suggests.
    startApp: async (wiring) => {
      const lookout = await startLookout({
        port: 0,
        store: { memory: true },
        ...app,
        ...wiring,
        settings: { USER_RATE_LIMIT: 100_000, ANALYTICS_TIMEOUT_MS: apiTimeoutMs, ...app.settings },
        log,
      });
      return Object.assign(lookout, { suggestions: suggestionsOf(lookout.commands) });
    },
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
/** What a message shows: its blocks, then its attachments' blocks (where Slack draws them). */
export type Shown = { blocks?: readonly unknown[]; attachments?: readonly unknown[] };

export function allBlocks(message: Shown): unknown[] {
  const inAttachments = (message.attachments ?? []).flatMap(
    (a) => ((a as Json)?.blocks as unknown[] | undefined) ?? [],
  );
  return [...(message.blocks ?? []), ...inAttachments];
}

/** Every piece of mrkdwn or plain text in a message's blocks. */
/** The level a message's colour bar shows (kit/colour.ts), or undefined without one. */
export function colourOf(message: Shown): Level | undefined {
  const color = ((message.attachments ?? [])[0] as Json | undefined)?.color;
  return (Object.entries(LEVEL_COLOURS) as [Level, string][]).find(([, c]) => c === color)?.[0];
}

export function textsOf(message: Shown): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const obj = node as Json;
    if ((obj.type === 'mrkdwn' || obj.type === 'plain_text' || obj.type === 'raw_text') && typeof obj.text === 'string')
      out.push(obj.text);
    for (const value of Object.values(obj)) walk(value);
  };
  walk(allBlocks(message));
  return out;
}

/** Only the mrkdwn texts: the ones Slack would interpret. */
export function mrkdwnOf(message: Shown): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const obj = node as Json;
    if (obj.type === 'mrkdwn' && typeof obj.text === 'string') out.push(obj.text);
    for (const value of Object.values(obj)) walk(value);
  };
  walk(allBlocks(message));
  return out;
}

/** Every mrkdwn text of a message, one a line. */
export const mrkdwnText = (message: Shown) => mrkdwnOf(message).join('\n');

/** The number of the watch a message names (`Watch #12`). */
export const watchIdOf = (message: Shown) => Number(/Watch #(\d+)/.exec(mrkdwnOf(message).join(' '))?.[1]);

/** The table block's rows as text, header first; [] when there is no table. */
export function tableOf(message: Shown): string[][] {
  const table = allBlocks(message).find((b) => ['table', 'data_table'].includes((b as Json).type as string)) as
    { rows: { text: string }[][] } | undefined;
  return table ? table.rows.map((row) => row.map((cell) => cell.text)) : [];
}

export function headerOf(message: Shown): string | undefined {
  const header = allBlocks(message).find((b) => (b as Json).type === 'header') as
    { text: { text: string } } | undefined;
  return header?.text.text;
}

export function hasAction(message: Shown, actionId: string): boolean {
  return JSON.stringify(allBlocks(message)).includes(`"action_id":"${actionId}"`);
}

/** The block ids of a view's input blocks, in order. */
export function inputsOf(view: { blocks: readonly unknown[] }): string[] {
  return view.blocks.flatMap((b) => {
    const block = b as { type?: string; block_id?: string };
    return block.type === 'input' && block.block_id ? [block.block_id] : [];
  });
}

/** Picks `kind` in the digest form's "How often" and waits for the form drawn again with that schedule's fields. */
export async function pickSchedule(box: Sandbox, view: View, kind: string): Promise<View> {
  const delivery = await box.slack.select(view, 'frequency', kind);
  if (delivery.status !== 200) throw new Error(`picking ${kind} was answered ${delivery.status}`);
  return box.slack.waitFor(() => {
    const now = box.slack.openViews(view.user).find((v) => v.id === view.id);
    const frequency = now?.blocks.find((b) => b.block_id === 'frequency') as
      { element?: { initial_option?: { value?: string } } } | undefined;
    return frequency?.element?.initial_option?.value === kind ? now : undefined;
  });
}
