/**
 * A rule that would have cried wolf says so when it is added, offers the mildest stricter rule
 * with its own count, and its button makes the watch that rule: through the running app, a
 * signed command and a click, against an API whose hours swing from one to the next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { mrkdwnOf } from '../../support/sandbox.js';
import { startSteadyWorld, type SteadyWorld } from '../../support/steady-api.js';
import { until } from '../../support/until.js';

const HOUR = 3_600_000;
const CHANNEL = 'C_GENERAL';
let world: SteadyWorld;

/** Every third hour is half as busy again as the one before it. */
const perHour = (t: number) => (Math.floor(t / HOUR) % 3 === 0 ? 60 : 40);

beforeAll(async () => {
  world = await startSteadyWorld({ at: '2026-11-27T12:20:00Z', from: '2026-10-01T00:00:00Z', perHour });
});
afterAll(() => world?.close());

/** The answer `text` gets, past its progress note. */
async function answer(text: string, pattern: RegExp): Promise<Message> {
  const before = new Set(world.slack.messages(CHANNEL, { user: 'U_ALICE' }).map((m) => m.ts));
  await world.slack.slash(CHANNEL, 'U_ALICE', text);
  return until(
    () =>
      world.slack
        .messages(CHANNEL, { user: 'U_ALICE' })
        .find(
          (m) =>
            !before.has(m.ts) &&
            m.ephemeralTo === 'U_ALICE' &&
            pattern.test(mrkdwnOf(m).join('\n')) &&
            !/Previewing/.test(m.text),
        ),
    text,
  );
}

describe('a watch that would have alerted too often', () => {
  it('says so, offers a stricter rule with its count, and its button makes the watch that rule', async () => {
    const added = await answer('watch visits rises 40% vs previous every hour', /Watch #\d+ added/);
    const words = mrkdwnOf(added).join('\n');
    // One rise in every three hours: 224 in 28 days.
    expect(words).toMatch(/Would have alerted 224 times in the last 28 days/);
    expect(words).toContain('That is more than once a day on average');
    expect(words).toMatch(/A stricter rule, `visits rises 60% vs previous every hour`, would never have alerted\./);
    const id = Number(/Watch #(\d+) added/.exec(words)![1]);

    const before = world.slack.messages(CHANNEL, { user: 'U_ALICE' }).length;
    await world.slack.click({ channel: CHANNEL, ts: added.ts }, 'watch.stricter', undefined, { user: 'U_ALICE' });
    const changed = await world.slack.waitForMessage(
      CHANNEL,
      (m) =>
        m.ephemeralTo === 'U_ALICE' &&
        world.slack.messages(CHANNEL, { user: 'U_ALICE' }).indexOf(m) >= before - 1 &&
        /changed/.test(mrkdwnOf(m).join('\n')),
    );
    expect(mrkdwnOf(changed).join('\n')).toMatch(/Would never have alerted in the last 28 days/);
    expect((await world.app.store.watches.get(id))!.rule.condition).toEqual({
      kind: 'change',
      direction: 'rises',
      pct: 60,
      against: 'previous',
    });
  });

  it('`watch preview <rule>` previews without keeping anything, and says how to add it', async () => {
    const before = (await world.app.store.watches.list('T_LOOKOUT')).length;
    const shown = await answer('watch preview visits rises 40% vs previous every hour', /If this watch had been on/);
    const words = mrkdwnOf(shown).join('\n');
    expect(words).toMatch(/Would have alerted 224 times in the last 28 days/);
    expect(words).toContain('Add it with `/traffic watch visits rises 40% vs previous every hour`');
    expect(JSON.stringify(shown.blocks)).not.toContain('watch.stricter');
    expect((await world.app.store.watches.list('T_LOOKOUT')).length).toBe(before);
  });

  it('a tampered button changes nothing and says why', async () => {
    const added = await answer('watch visits rises 40% vs previous every hour', /Watch #\d+ added/);
    const id = Number(/Watch #(\d+) added/.exec(mrkdwnOf(added).join('\n'))![1]);
    const rule = (await world.app.store.watches.get(id))!.rule;
    // The button's value as a forger would send it: a rule that does not parse.
    const button = (added.blocks as { accessory?: { action_id?: string; value?: string } }[]).find(
      (b) => b.accessory?.action_id === 'watch.stricter',
    )?.accessory;
    expect(button).toBeDefined();
    button!.value = `${id} visits rises 40% vs sometime`;
    await world.slack.click({ channel: CHANNEL, ts: added.ts }, 'watch.stricter', undefined, { user: 'U_ALICE' });
    // The answer takes the clicked message's place.
    await until(
      () =>
        world.slack
          .messages(CHANNEL, { user: 'U_ALICE' })
          .some((m) => m.ephemeralTo === 'U_ALICE' && /too old to act on/.test(mrkdwnOf(m).join('\n'))) || undefined,
      'the refusal',
    );
    expect((await world.app.store.watches.get(id))!.rule).toEqual(rule);
  });
});
