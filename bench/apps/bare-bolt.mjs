// A bare Bolt 5 app started as Lookout is in production (`node <file>`): the HTTP receiver at
// /slack/events, a /healthz route, and one command that only acks. The floor bench/memory.ts
// measures Lookout against. Reads PORT, SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, SLACK_API_URL.
import { boltApp, serve } from './bolt.mjs';

const app = boltApp();
app.command('/traffic', async ({ ack }) => {
  await ack();
});
/** What an app built on this one closes after Bolt on SIGTERM. */
export const closing = [];
await serve(app, closing);
