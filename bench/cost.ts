/**
 * What one person's minute of the heaviest commands costs the analytics API.
 *
 *   npm run bench -- cost
 *
 * One person sends, as fast as each is answered: 60 trends over 30 days with varied filters
 * (every one cold: nothing kept yet), 20 visitor cards and 10 digest previews. The demo API
 * counts the requests. With the default per-person limit (USER_RATE_LIMIT, 300 analytics
 * API requests a minute) against the same burst with the limit lifted (the floor: what the
 * commands would cost).
 */
import { createLogger } from '../src/platform/log.js';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { CHANNEL, USER, startTestSandbox } from '../test/support/sandbox.js';
import { loadConfig } from '../src/config.js';

const countries = ['US', 'DE', 'FR', 'GB', 'NL', 'SE', 'JP', 'BR', 'IN', 'CA', 'ES', 'IT', 'PL', 'AU', 'MX'];
const reports = ['sources', 'pages', 'countries', 'browsers'];
const defaults = loadConfig({});

async function minute(
  userRequests: number,
): Promise<{ sent: number; refused: number; requests: number; seconds: number }> {
  const box = await startTestSandbox({
    log: createLogger({ level: 'silent' }),
    scheduler: false,
    settings: { USER_RATE_LIMIT: userRequests, ADMIN_USERS: [USER] },
  });
  try {
    const start = box.demo!.requests.length;
    const t0 = performance.now();
    let sent = 0;
    let refused = 0;
    const ask = async (text: string, command = '/traffic') => {
      const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
      await box.slack.slash(CHANNEL, USER, text, command);
      const answer = await box.slack.waitFor(
        () =>
          box.slack
            .messages(CHANNEL, { user: USER })
            .find((m) => !before.has(m.ts) && !/^Fetching \d+ periods/.test(m.text) && m.ephemeralTo === USER),
        60_000,
      );
      sent++;
      if (/one person may make/.test(answer.text)) refused++;
    };
    for (let i = 0; i < 60; i++)
      await ask(
        `trend ${reports[i % reports.length]} last30d country:${countries[i % countries.length]}${i % 3 === 0 ? ' device:mobile' : ''}`,
      );
    for (let i = 0; i < 20; i++) await ask(Object.values(DEMO_VISITORS)[i % 5]!, '/visitor');
    await ask('digest add daily 09:00 sources pages countries browsers');
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    for (let i = 0; i < 10; i++) await ask(`digest preview ${digest!.id}`);
    return { sent, refused, requests: box.demo!.requests.length - start, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await box.stop();
  }
}

const limited = await minute(defaults.USER_RATE_LIMIT);
const floor = await minute(1_000_000);
console.log(`One person, 60 cold 30-day trends, 20 visitor cards, a digest and 10 previews, as fast as answered:`);
console.log(
  `  with USER_RATE_LIMIT=${defaults.USER_RATE_LIMIT}: ${limited.sent} commands in ${limited.seconds.toFixed(1)} s, ${limited.refused} refused, ${limited.requests} analytics API requests (${(limited.requests / defaults.USER_RATE_LIMIT).toFixed(2)}× the budget)`,
);
console.log(
  `  without a limit (the floor): ${floor.sent} commands in ${floor.seconds.toFixed(1)} s, ${floor.requests} analytics API requests (${(floor.requests / defaults.USER_RATE_LIMIT).toFixed(2)}× the budget)`,
);
