/**
 * The server side of bench/ack.ts, in its own process: the Lookout app (its Web
 * API calls go to an offline Slack; its analytics API is the demo API at
 * BENCH_API_URL, in yet another process, as a real API would be) and a bare
 * Bolt app that only acks, both with the same signing secret. Prints one JSON
 * line with their request URLs and the secret.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { createLogger } from '../src/platform/log.js';
import { startLookout } from '../src/compose.js';
import { startOfflineSlack } from '../src/sandbox/slack/index.js';

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-bench-${randomBytes(8).toString('hex')}`;
const slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: false });
const lookout = await startLookout({
  api: { baseUrl: process.env.BENCH_API_URL!, apiKey: process.env.BENCH_API_KEY! },
  slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
  log: createLogger({ level: 'silent' }),
  defaultTimezone: 'UTC',
  demo: true,
  port: 0,
  store: { memory: true },
});

// Bot ids given up front, and the Web API pointed at nothing: the bare app never calls out.
const bare = new App({
  receiver: new HTTPReceiver({ signingSecret, logLevel: LogLevel.ERROR }),
  token: 'xoxb-bare',
  botId: 'B_BARE',
  botUserId: 'U_BARE',
  tokenVerificationEnabled: false,
  clientOptions: { slackApiUrl: 'http://127.0.0.1:9/api/' },
  logLevel: LogLevel.ERROR,
});
bare.command('/traffic', async ({ ack }) => {
  await ack();
});
const server = await bare.start(0);

console.log(
  JSON.stringify({
    lookout: lookout.requestUrl,
    bare: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    signingSecret,
  }),
);
process.once('SIGTERM', () => {
  void Promise.all([lookout.stop(), bare.stop(), slack.close()]).then(() => process.exit(0));
});
