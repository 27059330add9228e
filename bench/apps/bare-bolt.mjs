// A bare Bolt 5 app started as Lookout is in production (`node <file>`): the HTTP receiver at
// /slack/events, a /healthz route, and one command that only acks. The floor bench/memory.ts
// measures Lookout against. Reads PORT, SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, SLACK_API_URL.
import process from 'node:process';
import bolt from '@slack/bolt';

const { App, HTTPReceiver, LogLevel } = bolt;
const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET,
  endpoints: '/slack/events',
  logLevel: LogLevel.ERROR,
  customRoutes: [{ path: '/healthz', method: ['GET'], handler: (_req, res) => res.writeHead(200).end('{"ok":true}') }],
});
const app = new App({
  receiver,
  token: process.env.SLACK_BOT_TOKEN,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
});
app.command('/traffic', async ({ ack }) => {
  await ack();
});
await app.start(Number(process.env.PORT ?? 3000));
/** What an app built on this one closes after Bolt on SIGTERM. */
export const closing = [];
process.once('SIGTERM', () =>
  app
    .stop()
    .then(() => Promise.all(closing.map((close) => close())))
    .then(() => process.exit(0)),
);
