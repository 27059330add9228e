// What the bench's reference apps share: a bare Bolt 5 app started as Lookout is in production
// (`node <file>`), with the HTTP receiver at /slack/events and a /healthz route, and how it is
// served and stopped. Reads PORT, SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, SLACK_API_URL.
import process from 'node:process';
import bolt from '@slack/bolt';

const { App, HTTPReceiver, LogLevel } = bolt;

export function boltApp() {
  const receiver = new HTTPReceiver({
    signingSecret: process.env.SLACK_SIGNING_SECRET,
    endpoints: '/slack/events',
    logLevel: LogLevel.ERROR,
    customRoutes: [
      { path: '/healthz', method: ['GET'], handler: (_req, res) => res.writeHead(200).end('{"ok":true}') },
    ],
  });
  return new App({
    receiver,
    token: process.env.SLACK_BOT_TOKEN,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
  });
}

/** Listens on PORT; on SIGTERM stops Bolt, then `closing` (what an app built on it closes), and exits. */
export async function serve(app, closing = []) {
  await app.start(Number(process.env.PORT ?? 3000));
  process.once('SIGTERM', () =>
    app
      .stop()
      .then(() => Promise.all(closing.map((close) => close())))
      .then(() => process.exit(0)),
  );
}
