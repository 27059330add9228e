// A second floor for CPU per answered command (bench/ack.ts): the floor app (floor.mjs), but
// answering as Lookout does. It asks the demo API for the report the command names, renders
// the rows with Lookout's own report message (a data_table, its buttons and menus), checks it
// with Lookout's preflight and posts it to the response_url. What it leaves out is Lookout's
// platform: the request guard, workspaces and rights, the per-person quota, the API client's
// budget, retries and timeouts, metrics and the request's async context.
// Needs dist/ built (bench/ack.ts builds it). Reads the same variables as floor.mjs.
import process from 'node:process';
import { Agent, Pool, request } from 'undici';
import { boltApp, serve } from './bolt.mjs';
import { REPORTS } from '../../dist/kernel/catalog.js';
import { encodeQuery, newQuery, toMarketingRequest } from '../../dist/kernel/query.js';
import { resolveRange } from '../../dist/kernel/range-dates.js';
import { reportMessage } from '../../dist/features/reports/blocks.js';
import { PreflightGate } from '../../dist/platform/slack/preflight-gate.js';
import { marketingCall } from '../../dist/platform/api/client.js';

const api = new Pool(process.env.ANALYTICS_API_URL, { connections: 8 });
const answers = new Agent({ keepAliveTimeout: 30_000 });
const preflight = new PreflightGate();
const app = boltApp();
app.command('/traffic', async ({ ack, command }) => {
  await ack();
  const [report, range] = command.text.split(' ');
  const def = REPORTS[report];
  const query = newQuery(def.id, range);
  const now = new Date();
  const resolved = resolveRange(query.range, 'UTC', now);
  const asked = marketingCall(toMarketingRequest(query, REPORTS, resolved.range));
  const { body } = await api.request({
    method: 'POST',
    path: def.path,
    query: asked.query,
    headers: { 'x-api-key': process.env.ANALYTICS_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(asked.body),
  });
  const rows = await body.json();
  const ref = encodeQuery(query);
  const message = reportMessage({
    def,
    query,
    range: resolved.range,
    rows,
    timeZone: 'UTC',
    apiZone: 'UTC',
    now,
    demo: false,
    ephemeral: true,
    refs: { current: ref, block: ref, next: ref, trend: ref },
  });
  const posted = await request(command.response_url, {
    method: 'POST',
    dispatcher: answers,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...preflight.message('response_url', message), response_type: 'ephemeral' }),
  });
  await posted.body.dump();
});
await serve(app);
