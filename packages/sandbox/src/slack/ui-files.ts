/** The page's files: its HTML, scripts and styles from ui/, Chart.js from the package, and Slack's emoji table. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { sendJson } from './http-util.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** Where the page's files are: beside this module, or (from a build that did not copy them) in the source tree. */
export function findUiDir(): string | undefined {
  const candidates = [
    fileURLToPath(new URL('./ui/', import.meta.url)),
    join(process.cwd(), 'src', 'sandbox', 'slack', 'ui'),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}
export function serveFile(dir: string | undefined, name: string, res: ServerResponse): Promise<void> {
  return (async () => {
    const type = TYPES[extname(name)];
    if (!dir || !type || !/^[a-z0-9][a-z0-9._-]*$/i.test(name)) {
      sendJson(res, 404, { ok: false, error: dir ? 'not_found' : 'ui_files_missing' });
      return;
    }
    let body: Buffer;
    try {
      body = await readFile(join(dir, name));
    } catch {
      sendJson(res, 404, { ok: false, error: 'not_found' });
      return;
    }
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...SECURITY_HEADERS });
    res.end(body);
  })();
}
let emoji: Record<string, string> | undefined;

/** Slack's shortcodes (iamcal's set) → the emoji, from emojibase-data; built once. */
export function emojiTable(): Record<string, string> {
  if (emoji) return emoji;
  const require = createRequire(import.meta.url);
  const shortcodes = require('emojibase-data/en/shortcodes/iamcal.json') as Record<string, string | string[]>;
  const compact = require('emojibase-data/en/compact.json') as { hexcode: string; unicode: string }[];
  const unicode = new Map(compact.map((e) => [e.hexcode, e.unicode]));
  const table: Record<string, string> = {};
  for (const [hex, codes] of Object.entries(shortcodes)) {
    const char = unicode.get(hex) ?? String.fromCodePoint(...hex.split('-').map((h) => parseInt(h, 16)));
    for (const code of [codes].flat()) table[code] = char;
  }
  return (emoji = table);
}

/** Chart.js's browser build, served from the package: the page loads nothing from outside. */
export async function serveChartJs(res: ServerResponse): Promise<void> {
  try {
    // The package exports no path to its browser build; it sits beside the resolved entry point.
    const entry = createRequire(import.meta.url).resolve('chart.js');
    const body = await readFile(join(dirname(entry), 'chart.umd.min.js'));
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=3600' }).end(body);
  } catch {
    sendJson(res, 404, { ok: false, error: 'chart_js_missing' });
  }
}
