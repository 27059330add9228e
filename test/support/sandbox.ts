import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/start.js';
import { captureLogs } from './log-capture.js';

export const USER = 'U_ALICE';
export const CHANNEL = 'C_MARKETING';

export async function sandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox & { logs: string[] }> {
  const { logger, lines } = captureLogs('debug');
  const box = await startSandbox({ log: logger, apiTimeoutMs: 2000, ...options });
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
  const table = (message.blocks ?? []).find((b) => (b as Json).type === 'table') as { rows: { text: string }[][] } | undefined;
  return table ? table.rows.map((row) => row.map((cell) => cell.text)) : [];
}

export function headerOf(message: { blocks?: readonly unknown[] }): string | undefined {
  const header = (message.blocks ?? []).find((b) => (b as Json).type === 'header') as { text: { text: string } } | undefined;
  return header?.text.text;
}

export function hasAction(message: { blocks?: readonly unknown[] }, actionId: string): boolean {
  return JSON.stringify(message.blocks ?? []).includes(`"action_id":"${actionId}"`);
}
