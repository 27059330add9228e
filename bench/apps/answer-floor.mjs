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
import { toMarketingRequest } from '../../dist/kernel/query.js';
import { marketingCall } from '../../dist/platform/api/client.js';
import { check, range, render, split } from './answer.mjs';

const api = new Pool(process.env.ANALYTICS_API_URL, { connections: 8 });
const answers = new Agent({ keepAliveTimeout: 30_000 });
const app = boltApp();
app.command('/traffic', async ({ ack, command }) => {
  await ack();
  const query = split(command.text);
  const now = new Date();
  const dates = range(query, now);
  const asked = marketingCall(toMarketingRequest(query, REPORTS, dates));
  const { body } = await api.request({
    method: 'POST',
    path: REPORTS[query.report].path,
    query: asked.query,
    headers: { 'x-api-key': process.env.ANALYTICS_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(asked.body),
  });
  const rows = await body.json();
  const message = render(query, dates, rows, now);
  const posted = await request(command.response_url, {
    method: 'POST',
    dispatcher: answers,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...check(message), response_type: 'ephemeral' }),
  });
  await posted.body.dump();
});
await serve(app);
