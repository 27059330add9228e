import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/demo-api/generate-dataset.js';
import { DEMO_VISITORS } from '../../src/demo-api/dataset.js';
import { startDemoApi, type DemoApi } from '../../src/demo-api/server.js';

const KEY = 'k-3c9e1f-demo-api-test-key';
const NOW = new Date('2026-11-20T13:45:12.000Z');
const ALL = 'start_date=2000-01-01&end_date=2100-01-01';

let api: DemoApi;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function call(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    key?: string | null;
    contentType?: string | null;
    signal?: AbortSignal;
  } = {},
  server = api,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers['x-api-key'] = init.key ?? KEY;
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  if (body !== undefined && init.contentType !== null) headers['content-type'] = init.contentType ?? 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    signal: init.signal ?? null,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const post = (path: string, body: unknown = {}, query = ALL) =>
  call(`${path}${query ? `?${query}` : ''}`, { method: 'POST', body });
const rows = async (path: string, body: unknown = {}, query = ALL) => {
  const answer = await post(path, body, query);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Record<string, unknown>[];
};

beforeAll(async () => {
  api = await startDemoApi({ apiKey: KEY, now: () => NOW });
});

afterAll(async () => {
  await api?.close();
});

beforeEach(() => {
  api.setFaults({});
  api.resetRequests();
});

describe('the server', () => {
  it('listens on a free loopback port and says where', () => {
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    expect(api.port).toBeGreaterThan(0);
  });
});

describe('authentication', () => {
  it.each([
    ['a missing key', null],
    ['a wrong key', 'wrong'],
    ['the key with a character more', `${KEY}x`],
    ['a prefix of the key', KEY.slice(0, -1)],
  ])('refuses %s with 401 and a JSON error that does not echo the key', async (_name, key) => {
    for (const answer of [
      await call(`/countries?${ALL}`, { method: 'POST', body: {}, key }),
      await call(`/security/vpn-status/${DEMO_VISITORS.vpn}`, { key }),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.json).toEqual({ error: 'unauthorized', message: 'missing or invalid x-api-key' });
      expect(answer.text).not.toContain(KEY);
    }
  });

  it('records requests without their headers', async () => {
    await post('/countries', { pagination: { limit: 2 } }, 'start_date=2026-11-01&end_date=2026-11-20');
    expect(api.requests).toEqual([
      {
        method: 'POST',
        path: '/countries',
        query: { start_date: '2026-11-01', end_date: '2026-11-20' },
        body: { pagination: { limit: 2 } },
        status: 200,
        account: 'default',
      },
    ]);
    expect(JSON.stringify(api.requests)).not.toContain(KEY);
  });
});

describe('every Marketing path answers with its rows', () => {
  const location = ['average_duration', 'label', 'name', 'total_visits', 'unique_visitors'];
  const traffic = [...location, 'id'].sort();
  const userAgent = ['average_duration', 'name', 'total_visits', 'unique_visitors'];
  it.each([
    ['/cities', location],
    ['/countries', location],
    ['/states', location],
    ['/traffic/campaigns', traffic],
    ['/traffic/channels', traffic],
    ['/traffic/sources', traffic],
    ['/user-agent/browsers', userAgent],
    ['/user-agent/devices', userAgent],
    ['/user-agent/extensions', userAgent],
    ['/user-agent/os', userAgent],
    ['/pages', ['avg_duration', 'full_url', 'total', 'visitors']],
  ])('%s', async (path, keys) => {
    const list = await rows(path, { pagination: { limit: 5 } });
    expect(list).toHaveLength(5);
    for (const row of list) {
      expect(Object.keys(row).sort()).toEqual(keys);
      for (const [key, value] of Object.entries(row)) {
        if (['total_visits', 'unique_visitors', 'total', 'visitors'].includes(key))
          expect(Number.isInteger(value), key).toBe(true);
        else if (key === 'average_duration' || key === 'avg_duration') expect(typeof value).toBe('number');
        else expect(typeof value, key).toBe('string');
      }
    }
    const totals = list.map((r) => (r['total_visits'] ?? r['total']) as number);
    expect([...totals].sort((a, b) => b - a)).toEqual(totals);
  });

  it('/visitors gives visitor records, newest first', async () => {
    const list = await rows('/visitors', { pagination: { limit: 50 } });
    expect(list).toHaveLength(50);
    for (const v of list) {
      expect(v['id']).toMatch(/^v_[A-Za-z0-9_-]+$/);
      expect(Date.parse(String(v['first_seen']))).toBeLessThanOrEqual(Date.parse(String(v['last_seen'])));
      if ('company' in v)
        expect(Object.keys(v['company'] as object).sort()).toEqual(['domain', 'industry', 'name', 'size']);
    }
    const created = list.map((v) => String(v['first_seen']));
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('/visits gives visit records, newest first', async () => {
    const list = await rows('/visits', { pagination: { limit: 50 } });
    expect(list).toHaveLength(50);
    for (const v of list) {
      expect(Object.keys(v).sort()).toEqual(
        [
          'browser',
          'date',
          'device',
          'duration',
          'id',
          'ip',
          'location',
          'params',
          'referrer',
          'screen',
          'timezone',
          'trafficSource',
          'url',
          'visitor_id',
        ].sort(),
      );
      expect(String(v['url'])).toMatch(/^https:\/\/www\.example-shop\.com\//);
      expect(Date.parse(String(v['date']))).toBeLessThanOrEqual(NOW.getTime());
    }
    const dates = list.map((v) => String(v['date']));
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(dates[0]!.startsWith('2026-11-20')).toBe(true);
  });

  it('uses the spec’s default dates, so without end_date nothing after 2024-11-28 is seen', async () => {
    expect(await rows('/visits', {}, '')).toEqual([]);
    expect(await rows('/countries', {}, 'start_date=2024-01-01')).toEqual([]);
    // A recent start_date alone lies after the default end_date.
    const alone = await post('/countries', {}, 'start_date=2026-11-20');
    expect(alone.status).toBe(400);
    expect(alone.json).toEqual({ error: 'bad_request', message: 'start_date 2026-11-20 is after end_date 2024-11-28' });
    expect((await rows('/countries', {}, 'start_date=2026-11-20&end_date=2026-11-20')).length).toBeGreaterThan(0);
  });

  it('accepts an empty body, and counts both end days by UTC day', async () => {
    const answer = await call('/visits?start_date=2026-11-19&end_date=2026-11-19', { method: 'POST' });
    expect(answer.status).toBe(200);
    const list = answer.json as { date: string }[];
    expect(list.length).toBe(100);
    expect(list.every((v) => v.date.startsWith('2026-11-19'))).toBe(true);
    const day = api.dataset.visits.filter((v) => v.date.startsWith('2026-11-19')).length;
    const countries = await rows(
      '/countries',
      { pagination: { limit: 1000 } },
      'start_date=2026-11-19&end_date=2026-11-19',
    );
    expect(countries.reduce((s, r) => s + (r['total_visits'] as number), 0)).toBe(day);
  });
});

describe('refusals', () => {
  it.each([
    ['a bad date', '/countries', 'start_date=2026-02-31', {}, 400, /start_date/],
    ['start after end', '/countries', 'start_date=2026-02-02&end_date=2026-02-01', {}, 400, /after end_date/],
    ['malformed JSON', '/countries', ALL, '{"filter_groups": [', 400, /not valid JSON/],
    [
      'an unknown filter object',
      '/visits',
      ALL,
      { filter_groups: [{ filters: [{ object: 'planet', field: 'name', operator: 'contains', value: 'x' }] }] },
      400,
      /^unknown filter object 'planet' \(known: /,
    ],
    [
      'an unknown sort key',
      '/pages',
      ALL,
      { sort_params: { key: 'total_visits', value: -1 } },
      400,
      /unknown sort key/,
    ],
    ['a page size over 1000', '/visits', ALL, { pagination: { current_page: 1, limit: 5000 } }, 400, /limit/],
    ['an unknown body member', '/visits', ALL, { pages: 1 }, 400, /unknown member 'pages'/],
  ])('%s', async (_name, path, query, body, status, message) => {
    const answer = await post(path, body, query);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ error: 'bad_request' });
    expect((answer.json as { message: string }).message).toMatch(message);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const huge = JSON.stringify({
      filter_groups: [
        { filters: [{ object: 'city', field: 'name', operator: 'contains', value: 'x'.repeat(1_100_000) }] },
      ],
    });
    const answer = await post('/countries', huge);
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error: 'payload_too_large' });
  });

  it('refuses a body that is not sent as JSON', async () => {
    const answer = await call(`/countries?${ALL}`, { method: 'POST', body: '{}', contentType: 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.json).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('answers 405 with Allow for the wrong method, and 404 for paths not in the spec', async () => {
    const get = await call('/countries');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const postSecurity = await call(`/security/bot-status/${DEMO_VISITORS.attacker}`, { method: 'POST', body: {} });
    expect(postSecurity.status).toBe(405);
    expect(postSecurity.headers.get('allow')).toBe('GET');
    for (const path of [
      '/',
      '/countries/',
      '/user',
      '/security/bot-status',
      '/security/lie-status/v_demo_human',
      `/security/bot-status/${DEMO_VISITORS.human}/x`,
    ]) {
      const answer = await call(path, { method: 'POST', body: {} });
      expect(answer.status, path).toBe(404);
      expect(answer.json).toMatchObject({ error: 'not_found' });
    }
  });
});

describe('security lookups', () => {
  it('answers the five records for a fixed visitor', async () => {
    const id = DEMO_VISITORS.scraper;
    const get = async (kind: string) => {
      const answer = await call(`/security/${kind}/${id}`);
      expect(answer.status).toBe(200);
      return answer.json as Record<string, unknown>;
    };
    expect(await get('adblock-status')).toEqual({ visitor_id: id, adblock: 'No', adblock_extension: '' });
    expect(await get('bot-status')).toEqual({
      visitor_id: id,
      is_abuser: 'True',
      is_attacker: 'False',
      is_proxy: 'True',
      is_threat: 'False',
    });
    expect(await get('scraping-status')).toEqual({ visitor_id: id, score: 0.97, visitor_type: 'SCRAPER' });
    expect(await get('vpn-status')).toEqual({ visitor_id: id, vpn: 'False' });
    const extensions = await get('scraping-extensions-status');
    expect(extensions).toMatchObject({ visitor_id: id, adblock: 'No' });
    expect(extensions['scraper_extension_list']).toEqual([
      { id: expect.stringMatching(/^[a-p]{32}$/), name: 'Web Scraper' },
      { id: expect.stringMatching(/^[a-p]{32}$/), name: 'Data Miner' },
    ]);
  });

  it('answers Unknown for the unknown visitor and the adblock extension for the human', async () => {
    expect((await call(`/security/bot-status/${DEMO_VISITORS.unknown}`)).json).toEqual({
      visitor_id: DEMO_VISITORS.unknown,
      is_abuser: 'Unknown',
      is_attacker: 'Unknown',
      is_proxy: 'Unknown',
      is_threat: 'Unknown',
    });
    expect((await call(`/security/adblock-status/${DEMO_VISITORS.human}`)).json).toEqual({
      visitor_id: DEMO_VISITORS.human,
      adblock: 'Yes',
      adblock_extension: 'uBlock Origin',
    });
  });

  it('answers 404 for an unknown visitor', async () => {
    for (const kind of [
      'adblock-status',
      'bot-status',
      'scraping-status',
      'vpn-status',
      'scraping-extensions-status',
    ]) {
      const answer = await call(`/security/${kind}/v_nobody_here`);
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ error: 'not_found', message: 'unknown visitor' });
    }
  });

  it('checks visit_id where the spec accepts it, and ignores it on scraping-status', async () => {
    const own = api.dataset.visitsOf(DEMO_VISITORS.attacker)[0]!.id;
    const other = api.dataset.visitsOf(DEMO_VISITORS.human)[0]!.id;
    expect((await call(`/security/vpn-status/${DEMO_VISITORS.attacker}?visit_id=${own}`)).status).toBe(200);
    const wrong = await call(`/security/vpn-status/${DEMO_VISITORS.attacker}?visit_id=${other}`);
    expect(wrong.status).toBe(404);
    expect(wrong.json).toEqual({ error: 'not_found', message: 'unknown visit for this visitor' });
    expect((await call(`/security/scraping-status/${DEMO_VISITORS.attacker}?visit_id=${other}`)).status).toBe(200);
  });

  it('decodes a percent-encoded visitor id', async () => {
    api.dataset.addVisitor({ id: 'v with space', first_seen: '2026-11-01T00:00:00.000Z' });
    const answer = await call('/security/vpn-status/v%20with%20space');
    expect(answer.json).toEqual({ visitor_id: 'v with space', vpn: 'False' });
    expect((await call('/security/vpn-status/%E0%A4%A')).status).toBe(400);
  });
});

describe('filters, sorting and paging over HTTP', () => {
  it('filters visits with is_any_of and ORs groups', async () => {
    const germany = { filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['Germany'] }] };
    const firefox = { filters: [{ object: 'browser', field: 'name', operator: 'is_any_of', value: ['firefox'] }] };
    const g = await rows('/visits', { filter_groups: [germany], pagination: { limit: 1000 } });
    expect(g.length).toBeGreaterThan(100);
    expect(g.every((v) => (v['location'] as { country: string }).country === 'Germany')).toBe(true);
    const countries = await rows('/countries', { filter_groups: [germany, firefox], pagination: { limit: 1000 } });
    const expected = api.dataset.visits.filter(
      (v) => v.location.country === 'Germany' || v.browser.name === 'Firefox',
    ).length;
    expect(countries.reduce((s, r) => s + (r['total_visits'] as number), 0)).toBe(expected);
  });

  it('sorts by any row field in both directions', async () => {
    const asc = await rows('/cities', { sort_params: { key: 'name', value: 1 }, pagination: { limit: 1000 } });
    const names = asc.map((r) => String(r['name']).toLowerCase());
    expect(names).toEqual([...names].sort());
    const desc = await rows('/pages', { sort_params: { key: 'avg_duration', value: -1 }, pagination: { limit: 1000 } });
    const durations = desc.map((r) => r['avg_duration'] as number);
    expect(durations).toEqual([...durations].sort((a, b) => b - a));
    const oldest = await rows('/visits', { sort_params: { key: 'created', value: 1 }, pagination: { limit: 3 } });
    expect(oldest[0]!['date']).toBe(api.dataset.visits[0]!.date);
  });

  it('pages through a report: every row once, in order, then []', async () => {
    const whole = await rows('/cities', { pagination: { limit: 1000 } });
    expect(whole.length).toBeGreaterThan(250);
    const paged: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const chunk = await rows('/cities', { pagination: { current_page: page, limit: 97 } });
      if (chunk.length === 0) break;
      paged.push(...chunk);
    }
    expect(paged).toEqual(whole);
    expect(await rows('/cities', { pagination: { current_page: 99, limit: 100 } })).toEqual([]);
    // Same-named cities stay apart.
    const portland = whole.filter((r) => r['name'] === 'Portland').map((r) => r['label']);
    expect(new Set(portland).size).toBe(portland.length);
  });

  it('shows a visit added to the data set in the next answer (the cache is invalidated)', async () => {
    const query = 'start_date=2026-11-20&end_date=2026-11-20';
    const filter = {
      filter_groups: [
        { filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: [DEMO_VISITORS.vpn] }] },
      ],
    };
    const before = await rows('/visits', filter, query);
    const added = api.dataset.addVisit({ visitor_id: DEMO_VISITORS.vpn, date: '2026-11-20T13:45:00.000Z' });
    const after = await rows('/visits', filter, query);
    expect(after.length).toBe(before.length + 1);
    expect(after.map((v) => v['id'])).toContain(added.id);
  });

  it('serves 1,000-row pages of visits, each page its own rows (how fast: npm run bench -- api-client)', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(await rows('/visits', { pagination: { current_page: page, limit: 1000 } }));
    for (const page of pages) expect(page).toHaveLength(1000);
    expect(new Set(pages.flat().map((v) => v['id'])).size).toBe(3000);
  });
});

describe('faults', () => {
  it('latencyMs delays the answer', async () => {
    api.setFaults({ latencyMs: 120 });
    const started = performance.now();
    expect((await post('/countries')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('status500Until answers the next N requests with 500, then recovers', async () => {
    api.setFaults({ status500Until: 2 });
    const statuses = [
      (await post('/countries')).status,
      (await post('/countries')).status,
      (await post('/countries')).status,
    ];
    expect(statuses).toEqual([500, 500, 200]);
    expect(api.requests.map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it('rateLimit answers 429 with Retry-After', async () => {
    api.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 3 } });
    const limited = await post('/countries');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.json).toMatchObject({ error: 'rate_limited' });
    expect((await post('/countries')).status).toBe(200);
  });

  it('malformedJson answers 200 with a body that does not parse', async () => {
    api.setFaults({ malformedJson: true });
    const answer = await post('/countries');
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(answer.text)).toThrow();
    // Errors stay well-formed.
    expect((await post('/countries', {}, 'start_date=bad')).json).toMatchObject({ error: 'bad_request' });
  });

  it('drift answers 200 with wrongly typed fields', async () => {
    api.setFaults({ drift: true });
    const [row] = await rows('/countries', { pagination: { limit: 1 } });
    expect(row!['total_visits']).toEqual({ value: expect.any(Number) });
    const bot = (await call(`/security/bot-status/${DEMO_VISITORS.attacker}`)).json;
    expect(bot).toMatchObject({ is_attacker: true });
  });

  it('paths limits faults to matching paths', async () => {
    api.setFaults({ status500Until: 5, paths: ['/security/'] });
    expect((await post('/countries')).status).toBe(200);
    expect((await call(`/security/vpn-status/${DEMO_VISITORS.vpn}`)).status).toBe(500);
  });

  it('failRate is deterministic for a seed', async () => {
    const run = async (server: DemoApi) => {
      server.setFaults({ failRate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++)
        statuses.push((await call(`/security/vpn-status/${DEMO_VISITORS.vpn}`, {}, server)).status);
      return statuses;
    };
    const other = await startDemoApi({ apiKey: KEY, dataset: api.dataset, seed: 42 });
    try {
      const a = await run(api);
      const b = await run(other);
      expect(a).toEqual(b);
      expect(a).toContain(500);
      expect(a).toContain(200);
    } finally {
      await other.close();
    }
  });

  it('hang never answers; the client times out, and close() ends without waiting for the hanging request', async () => {
    const dataset = generateDataset({ now: NOW, visitors: 20, visits: 100, days: 5 });
    const server = await startDemoApi({ apiKey: KEY, dataset, faults: { hang: true } });
    await expect(
      call('/countries', { method: 'POST', body: {}, signal: AbortSignal.timeout(150) }, server),
    ).rejects.toThrow();
    const pending = call('/countries', { method: 'POST', body: {} }, server);
    const outcome = pending.then(
      () => 'answered',
      () => 'failed',
    );
    await expect.poll(() => server.requests.length, { message: 'the second request to arrive' }).toBe(2);
    await server.close(); // waiting for the hanging request would never end: the test's timeout would fail it
    expect(await outcome).toBe('failed');
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((r) => r.status === undefined)).toBe(true);
  });
});
