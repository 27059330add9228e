import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openRepos, startLookout } from '../../src/compose.js';
import type { LookoutFeature, LookoutOptions } from '../../src/context.js';
import { FEATURES } from '../../src/features/index.js';
import { defineSubject } from '../../src/platform/deliveries/subject.js';
import { silentLogger } from '../../src/platform/log.js';
import { commandCatalog, trafficHint } from '../../src/platform/feature.js';
import { suggestionsOf } from '../../src/sandboxed.js';
import { ping, PingRepo } from '../support/ping/index.js';
import { CHANNEL, sandbox, textsOf, USER, type Sandbox } from '../support/sandbox.js';

describe('a feature plugs in with one entry in the list', () => {
  let box: Sandbox & { logs: string[] };
  beforeAll(async () => {
    // PING_REPLY is the ping feature's own setting: given here, its default ("pong") otherwise.
    box = await sandbox({
      features: [...FEATURES, ping],
      settings: { PING_REPLY: 'pong!' } as LookoutOptions['settings'],
    });
  });
  afterAll(async () => {
    await box?.stop();
  });

  async function answer(text: string): Promise<string[]> {
    const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
    expect((await box.slack.slash(CHANNEL, USER, text, '/traffic')).status).toBe(200);
    const reply = await box.slack.waitForMessage(
      CHANNEL,
      (m) => !before.has(m.ts) && m.user !== USER && m.ephemeralTo === USER,
    );
    return textsOf(reply);
  }

  it('/traffic ping answers from its own table, and its help is in /traffic help', async () => {
    expect((await answer('ping')).join('\n')).toContain('pong! (1 so far here)');
    expect((await answer('ping')).join('\n')).toContain('pong! (2 so far here)');
    expect((await answer('help ping')).join('\n')).toContain('/traffic ping: answers pong');
    const general = (await answer('help')).join('\n');
    expect(general).toMatch(/Also: .*\/traffic ping …/);
    expect(general).toMatch(/More: .*\| ping \|/);
  });

  it('its table came with its migration, and its repository is on the store', async () => {
    const { rows } = await box.lookout.store.db.query<{ version: number }>(
      'SELECT version FROM schema_migrations WHERE version = 900',
    );
    expect(rows).toEqual([{ version: 900 }]);
    expect(await new PingRepo(box.lookout.store.db).count(box.slack.workspace.team.id)).toBeGreaterThanOrEqual(2);
  });

  it('its metric is served at /metrics, and its job was started', async () => {
    await answer('ping');
    const metrics = await (await fetch(`${box.lookout.ops.url}/metrics`)).text();
    expect(Number(/^lookout_pings_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect((box.lookout.features as { ping?: { jobRuns(): number } }).ping?.jobRuns()).toBe(1);
  });

  it("the manifest's hint for /traffic is made from the definitions, so it names ping", () => {
    expect(trafficHint(commandCatalog([...FEATURES, ping]))).toMatch(/\| ping … \| help$/);
  });

  it("the sandbox's suggestions are made from the same definitions, so they offer ping", () => {
    const traffic = suggestionsOf(box.lookout.commands).commands.find((c) => c.command === '/traffic');
    expect(traffic?.hint).toMatch(/\| ping … \| help$/);
    expect(traffic?.words?.map((w) => w.word)).toContain('ping');
    expect(traffic?.words?.find((w) => w.word === 'help')?.next?.words).toContain('ping');
  });

  it('the features it was added to still answer', async () => {
    expect((await answer('alerts status')).join('\n')).toMatch(/alert/i);
  });
});

describe('delivery subjects are checked at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-subjects-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const options = (extra: Partial<LookoutOptions>): LookoutOptions => ({
    api: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' },
    slack: { signingSecret: 'unused-secret', botToken: 'xoxb-unused', apiUrl: 'http://127.0.0.1:9/api/' },
    store: { memory: true },
    log: silentLogger,
    demo: true,
    port: 0,
    scheduler: false,
    ...extra,
  });

  it('a subject two features define stops the app, naming it', async () => {
    const twice: LookoutFeature<'twice'> = {
      name: 'twice',
      subjects: [defineSubject({ kind: 'digest', payload: z.object({}) })],
      plug: () => ({ gives: undefined }),
    };
    await expect(startLookout(options({ features: [...FEATURES, twice] }))).rejects.toThrow(
      "delivery subject 'digest' is defined twice",
    );
  });

  it('a delivery waiting in the outbox about a subject no feature defines stops the app, naming it', async () => {
    const store = await openRepos({ dataDir: dir });
    await store.db.query(
      "INSERT INTO deliveries (kind, channel_id, message, next_at, deadline, created_at) VALUES ('gone', 'C1', '{\"text\":\"x\",\"blocks\":[]}'::jsonb, now(), now() + interval '1 hour', now())",
    );
    await store.close();
    await expect(startLookout(options({ store: { dataDir: dir } }))).rejects.toThrow(
      /the outbox holds deliveries about 'gone', which no feature defines/,
    );
    // The refusal closed the store: it opens again, the delivery still waiting (nothing was changed).
    const again = await openRepos({ dataDir: dir });
    expect(
      (await again.db.query<{ status: string }>("SELECT status FROM deliveries WHERE kind = 'gone'")).rows,
    ).toEqual([{ status: 'pending' }]);
    await again.close();
  });
});
