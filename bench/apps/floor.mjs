// The floor for CPU per answered command (bench/ack.ts): a bare Bolt app that acks, makes one
// undici request to the analytics API (the same demo API Lookout asks) and posts the rows it
// got to the command's response_url. Reads PORT, SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN,
// SLACK_API_URL, ANALYTICS_API_URL, ANALYTICS_API_KEY.
import process from 'node:process';
import { Agent, Pool, request } from 'undici';
import { boltApp, serve } from './bolt.mjs';

const api = new Pool(process.env.ANALYTICS_API_URL, { connections: 8 });
const answers = new Agent({ keepAliveTimeout: 30_000 });
const app = boltApp();
app.command('/traffic', async ({ ack, command }) => {
  await ack();
  const report = command.text.split(' ')[0] === 'pages' ? '/pages' : '/traffic/sources';
  const { body } = await api.request({
    method: 'POST',
    path: report,
    query: { start_date: '2026-01-01', end_date: '2026-12-31' },
    headers: { 'x-api-key': process.env.ANALYTICS_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ filter_groups: [], pagination: { current_page: 1, limit: 10 } }),
  });
  const rows = await body.json();
  const text = rows.map((r) => `${r.name ?? r.full_url}: ${r.total_visits ?? r.total}`).join('\n');
  const posted = await request(command.response_url, {
    method: 'POST',
    dispatcher: answers,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      response_type: 'ephemeral',
      text,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    }),
  });
  await posted.body.dump();
});
await serve(app);
