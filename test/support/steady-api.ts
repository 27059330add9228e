/**
 * An analytics API with one visit a minute (or `perMinute`, or `perHour(hour)` visits spread
 * evenly over each UTC hour: a history with its own shape), all year, as a real HTTP
 * server on port 0: what the issue measured against. It counts only the visits made by
 * its clock, so a day still open at the API keeps growing, and it counts days in its own
 * zone (`timeZone`, UTC by default). It serves `/countries` (one row: the day's visits)
 * and `/visits` (one record a visit, newest first, paged), and can answer wrongly for a
 * while: a glitch cuts the matching answers to their first `keep` rows (`keep: 0` is `[]`),
 * leaves out visits that arrive late, or fails them with an HTTP status.
 *
 * Its zone arithmetic is its own (minutes scanned with Intl), so it checks the product's
 * rather than sharing it.
 */
import { randomBytes } from 'node:crypto';
import { startLookout, type Lookout } from '../../src/compose.js';
import type { LookoutOptions } from '../../src/compose.js';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from './log-capture.js';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Glitch {
  path: '/countries' | '/visits';
  /** Only requests for this start_date (the API's date); any when absent. */
  startDate?: string;
  /** Only this page (pagination.current_page, 1 when absent from the body); any when absent. */
  page?: number;
  /** Rows the answer keeps: 0 answers `[]`. */
  keep?: number;
  /** `/countries` counts this many visits fewer (they arrive late). */
  missing?: number;
  /** The answer fails with this HTTP status instead. */
  status?: number;
  /** How many answers it spoils; for good when absent. */
  times?: number;
  /** It spoils answers until this instant of the API's clock. */
  until?: Date;
}

export interface SteadyRequest {
  path: string;
  startDate: string;
  endDate: string;
  page: number;
  limit: number;
  /** Rows answered. */
  rows: number;
}

export interface SteadyApi {
  readonly url: string;
  readonly requests: SteadyRequest[];
  readonly glitches: Glitch[];
  /** The visits the API holds, by its clock, for its dates `startDate`..`endDate`. */
  count(startDate: string, endDate: string): number;
  close(): Promise<void>;
}

export interface SteadyApiOptions {
  now: () => Date;
  /** The first visit. */
  from: Date;
  perMinute?: number;
  /** Visits in the UTC hour starting at `hourStart` (ms), a whole number; in place of `perMinute`. */
  perHour?: (hourStart: number) => number;
  timeZone?: string;
  apiKey?: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The API's visits in order, each by its index: when it was made, and the indexes made in [start, end). */
interface Timeline {
  at(k: number): number;
  range(start: number, end: number): [number, number];
}

function steadyTimeline(first: number, step: number): Timeline {
  return {
    at: (k) => first + k * step,
    range: (start, end) => [Math.ceil((start - first) / step), Math.ceil((end - first) / step) - 1],
  };
}

/** `perHour(h)` visits in each UTC hour from `first`'s, at the middles of its equal parts. */
function hourlyTimeline(first: number, perHour: (hourStart: number) => number): Timeline {
  const h0 = Math.floor(first / HOUR) * HOUR;
  const counts: number[] = [];
  const before: number[] = [0];
  const upTo = (i: number) => {
    while (counts.length <= i) {
      const n = Math.max(0, Math.floor(perHour(h0 + counts.length * HOUR)));
      counts.push(n);
      before.push(before[before.length - 1]! + n);
    }
  };
  /** The first index made at or after t. */
  const from = (t: number) => {
    if (t <= h0) return 0;
    const i = Math.floor((t - h0) / HOUR);
    upTo(i);
    const n = counts[i]!;
    const j = Math.min(n, Math.max(0, Math.ceil(((t - h0 - i * HOUR) * n) / HOUR - 0.5)));
    return before[i]! + j;
  };
  return {
    at: (k) => {
      while (before[counts.length]! <= k) upTo(counts.length);
      // The hour holding visit k: the last i with before[i] <= k.
      let [lo, hi] = [0, counts.length - 1];
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (before[mid]! <= k) lo = mid;
        else hi = mid - 1;
      }
      return h0 + lo * HOUR + ((k - before[lo]! + 0.5) * HOUR) / counts[lo]!;
    },
    range: (start, end) => [from(start), from(end) - 1],
  };
}

const formats = new Map<string, Intl.DateTimeFormat>();
const starts = new Map<string, number>();

/** The calendar date (YYYY-MM-DD) of an instant in a zone. */
export function dateIn(ms: number, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format)
    formats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return format.format(new Date(ms));
}

/** The first minute of `date` in `timeZone`. */
export function startOfDate(date: string, timeZone: string): number {
  const key = `${timeZone}|${date}`;
  let t = starts.get(key);
  if (t !== undefined) return t;
  t = Date.parse(`${date}T00:00:00Z`) - 15 * 3_600_000;
  while (dateIn(t, timeZone) < date) t += MINUTE;
  starts.set(key, t);
  return t;
}

const nextDate = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export async function startSteadyApi(options: SteadyApiOptions): Promise<SteadyApi> {
  const perMinute = options.perMinute ?? 1;
  const zone = options.timeZone ?? 'UTC';
  const apiKey = options.apiKey ?? 'steady';
  const first = options.from.getTime();
  const timeline = options.perHour ? hourlyTimeline(first, options.perHour) : steadyTimeline(first, MINUTE / perMinute);
  const requests: SteadyRequest[] = [];
  const glitches: Glitch[] = [];

  /** Visit indexes (k: the visit at first + k·step) made on the API's dates and by its clock, as [lowest, highest]. */
  function span(startDate: string, endDate: string): [number, number] {
    const start = Math.max(first, startOfDate(startDate, zone));
    const end = Math.min(options.now().getTime() + 1, startOfDate(nextDate(endDate), zone));
    return end <= start ? [0, -1] : timeline.range(start, end);
  }
  const count = (startDate: string, endDate: string) => {
    const [lo, hi] = span(startDate, endDate);
    return Math.max(0, hi - lo + 1);
  };

  function answer(path: string, startDate: string, endDate: string, page: number, limit: number): unknown[] {
    if (path === '/countries') {
      const n = count(startDate, endDate);
      return page === 1 && n > 0
        ? [{ name: 'Germany', label: 'Germany', total_visits: n, unique_visitors: n, average_duration: 60 }]
        : [];
    }
    const [lo, hi] = span(startDate, endDate);
    const rows: unknown[] = [];
    // Newest first.
    for (let k = hi - (page - 1) * limit; k >= lo && rows.length < limit; k--) {
      rows.push({
        id: `v${k}`,
        visitor_id: `u${k}`,
        date: new Date(timeline.at(k)).toISOString(),
        url: 'https://www.example.com/',
      });
    }
    return rows;
  }

  function spoil(path: string, startDate: string, page: number, rows: unknown[]): unknown[] | { status: number } {
    const now = options.now().getTime();
    const i = glitches.findIndex(
      (g) =>
        g.path === path &&
        (g.startDate === undefined || g.startDate === startDate) &&
        (g.page === undefined || g.page === page) &&
        (g.until === undefined || now < g.until.getTime()),
    );
    if (i < 0) return rows;
    const glitch = glitches[i]!;
    if (glitch.times !== undefined && --glitch.times <= 0) glitches.splice(i, 1);
    if (glitch.status !== undefined) return { status: glitch.status };
    const kept = rows.slice(0, glitch.keep ?? rows.length);
    if (!glitch.missing) return kept;
    return kept.map((row) => {
      const r = row as { total_visits?: number; unique_visitors?: number };
      return r.total_visits === undefined
        ? row
        : {
            ...r,
            total_visits: r.total_visits - glitch.missing!,
            unique_visitors: (r.unique_visitors ?? 0) - glitch.missing!,
          };
    });
  }

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = await read(req);
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.headers['x-api-key'] !== apiKey) return reply(401, { error: 'unauthorized' });
      if (req.method !== 'POST' || (url.pathname !== '/countries' && url.pathname !== '/visits'))
        return reply(404, { error: 'not found' });
      const parsed = (body ? JSON.parse(body) : {}) as { pagination?: { current_page?: number; limit?: number } };
      const page = parsed.pagination?.current_page ?? 1;
      const limit = parsed.pagination?.limit ?? 100;
      const startDate = url.searchParams.get('start_date') ?? '1970-01-01';
      const endDate = url.searchParams.get('end_date') ?? '2024-11-28';
      const rows = spoil(url.pathname, startDate, page, answer(url.pathname, startDate, endDate, page, limit));
      if (!Array.isArray(rows)) {
        requests.push({ path: url.pathname, startDate, endDate, page, limit, rows: 0 });
        return reply(rows.status, { error: 'glitch' });
      }
      requests.push({ path: url.pathname, startDate, endDate, page, limit, rows: rows.length });
      reply(200, rows);
    })().catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    glitches,
    count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The app against a steady API and the offline Slack, on a clock the test moves (`world.at`): watches judged at once. */
export interface SteadyWorld {
  api: SteadyApi;
  slack: OfflineSlack;
  app: Lookout;
  /** The clock every part reads (ms); set it to move time. */
  at: number;
  close(): Promise<void>;
}

export async function startSteadyWorld(options: {
  at: string;
  from: string;
  perHour?: SteadyApiOptions['perHour'];
  settings?: LookoutOptions['settings'];
}): Promise<SteadyWorld> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  const world = { at: new Date(options.at).getTime() } as SteadyWorld;
  const now = () => new Date(world.at);
  world.api = await startSteadyApi({
    now,
    from: new Date(options.from),
    apiKey: 'k',
    ...(options.perHour ? { perHour: options.perHour } : {}),
  });
  world.slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
  world.app = await startLookout({
    api: { baseUrl: world.api.url, apiKey: 'k' },
    slack: { signingSecret, botToken, apiUrl: world.slack.apiUrl },
    store: { memory: true },
    log: captureLogs('warn').logger,
    demo: false,
    now,
    port: 0,
    replica: 'solo',
    scheduler: false,
    settings: { ANALYTICS_TIMEOUT_MS: 5_000, WATCH_SPREAD_HOURLY: 0, WATCH_SPREAD_DAILY: 0, ...options.settings },
  });
  world.slack.setAppUrl(world.app.requestUrl!);
  world.close = async () => {
    await world.app.stop();
    await world.slack.close();
    await world.api.close();
  };
  return world;
}
