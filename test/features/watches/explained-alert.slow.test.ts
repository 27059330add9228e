import { describe, expect, it } from 'vitest';
import type { PeriodCounts } from '@lookout/sandbox/demo-api';
import { HOUR, spikeWorld } from '../../support/spike-world.js';
import { until } from '../../support/until.js';
import { headerOf, mrkdwnOf, mrkdwnText, watchIdOf } from '../../support/sandbox.js';
import { SAMPLE_LOOKUPS } from '../../../src/features/watches/explainer.js';

/**
 * "Is this spike real?" end to end: the demo produces a human spike from a new source and a
 * scraper wave on one page, each in an hour after its data ends (so the hour holds only what
 * is produced), the threat scan judges the hour's visitors, the watch evaluates, and its alert
 * is explained in place. The figures are checked against the demo API's own counts.
 */
const w = spikeWorld();

const alertsOf = (channel: string, id: number) =>
  w.slack.messages(channel).filter((m) => /^Watch: /.test(headerOf(m) ?? '') && mrkdwnText(m).includes(`watch #${id}`));

/** Each label's average visits over the four same hours before, as the demo counts them. */
function usual(h: Date, pick: (c: PeriodCounts) => number): number {
  const weeks = [1, 2, 3, 4].map((back) => {
    const from = new Date(h.getTime() - back * 7 * 24 * HOUR);
    return pick(w.demo.accounts[0]!.counts(from, new Date(from.getTime() + HOUR)));
  });
  return weeks.reduce((a, b) => a + b, 0) / weeks.length;
}

describe('a watch alert explains its spike', () => {
  it('a human spike from a new source: names the source as new, with the demo’s figure, and says it is mostly people', async () => {
    const h = w.hour();
    w.clock = h.getTime() - HOUR;
    const all = watchIdOf(await w.command('C_MARKETING', 'watch visits spike every hour'));
    const people = watchIdOf(await w.command('C_GENERAL', 'watch visits by people spike every hour'));
    const spike = w.demo.spike({ kind: 'human', hour: h, visits: 150 });
    await w.evaluate(h);

    const alert = await w.explained('C_MARKETING', all);
    const text = mrkdwnText(alert);
    const counted = w.demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR));
    expect(counted.sources[spike.source.name]).toBe(150);
    expect(text).toContain(`${spike.source.name} +150 (new`);
    expect(text).not.toContain('Ignore automated spikes');
    expect(text).toMatch(
      /Who moved it:\* mostly people: (none|at most \d+%|under \d+%) of the rise is from flagged visitors/,
    );
    // The people-only watch alerts too.
    expect(alertsOf('C_GENERAL', people)).toHaveLength(1);
    for (const id of [all, people]) await w.command('C_MARKETING', `watch remove ${id}`);
  }, 60_000);

  it('visitors the scan has not judged yet: a bounded sample of them is looked up, and the explanation says it is a sample', async () => {
    const h = w.hour();
    w.clock = h.getTime() - HOUR;
    const all = watchIdOf(await w.command('C_MARKETING', 'watch visits spike every hour'));
    const spike = w.demo.spike({ kind: 'human', hour: h, visits: 150 });
    const lookupsBefore = w.demo.requests.filter((r) => r.path.startsWith('/security/')).length;
    // No scan this hour: none of its visitors is judged when the watch evaluates.
    w.clock = h.getTime() + HOUR + 60_000;
    await w.app.features.watches.evaluator.tick();
    w.clock = h.getTime() + HOUR + 3 * 60_000;
    await w.app.features.watches.evaluator.tick();
    const text = mrkdwnText(await w.explained('C_MARKETING', all));
    expect(text).toContain(`sampled: ${SAMPLE_LOOKUPS} of ${spike.visitors} visitors judged`);
    const lookups = w.demo.requests.filter((r) => r.path.startsWith('/security/')).slice(lookupsBefore);
    expect(new Set(lookups.map((r) => r.path.split('/').at(-1))).size).toBe(SAMPLE_LOOKUPS);
    await w.command('C_MARKETING', `watch remove ${all}`);
  }, 60_000);

  it('a scraper wave on one page: names the page with the demo’s change, says it is mostly automated, lists the flagged visitors; ignoring automated spikes silences the next wave', async () => {
    const h = w.hour();
    w.clock = h.getTime() - HOUR;
    const all = watchIdOf(await w.command('C_MARKETING', 'watch visits spike every hour'));
    const people = watchIdOf(await w.command('C_GENERAL', 'watch visits by people spike every hour'));
    const wave = w.demo.spike({ kind: 'scraper', hour: h, visits: 140 });
    await w.evaluate(h);

    const alert = await w.explained('C_MARKETING', all);
    const text = mrkdwnText(alert);
    const url = wave.page!.url;
    const change = Math.round(
      w.demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR)).pages[url]! - usual(h, (c) => c.pages[url] ?? 0),
    );
    expect(text).toContain(`${wave.page!.path} +${change}`);
    expect(text).toMatch(/Who moved it:\* mostly automated: (all|at least \d+%) of the rise is from flagged visitors/);
    expect(alertsOf('C_GENERAL', people)).toEqual([]);

    // Flagged visitors are security details: refused to Bob, shown to Alice with the scan's verdicts.
    const bobs = w.slack.messages('C_MARKETING', { user: 'U_BOB' }).length;
    await w.slack.click(alert, 'watch.flagged', undefined, { user: 'U_BOB' });
    const refused = await until(
      () =>
        w.slack
          .messages('C_MARKETING', { user: 'U_BOB' })
          .slice(bobs)
          .find((m) => m.ephemeralTo === 'U_BOB'),
      'the refusal',
    );
    expect(mrkdwnOf(refused).join(' ')).toContain('security details');
    expect(mrkdwnOf(refused).join(' ')).not.toContain(wave.visitorIds[0]!);
    const before = w.slack.messages('C_MARKETING', { user: 'U_ALICE' }).length;
    await w.slack.click(alert, 'watch.flagged', undefined, { user: 'U_ALICE' });
    const list = await until(
      () =>
        w.slack
          .messages('C_MARKETING', { user: 'U_ALICE' })
          .slice(before)
          .find((m) => m.ephemeralTo === 'U_ALICE'),
      'the flagged visitors',
    );
    const listed = mrkdwnOf(list).join('\n');
    const scrapers = new Set(wave.visitorIds);
    expect(listed).toContain(`${scrapers.size} flagged visitors`);
    for (const id of scrapers) expect(listed).toContain(id);

    // Ignore automated spikes: the watch counts people; the next wave does not alert.
    await w.slack.click(alert, 'watch.ignore-automated', undefined, { user: 'U_ALICE' });
    await until(async () => (await w.app.store.watches.get(all))?.rule.who === 'people' || undefined, 'people only');
    const next = w.hour();
    w.demo.spike({ kind: 'scraper', hour: next, visits: 140 });
    await w.evaluate(next);
    await until(
      async () =>
        ((await w.app.store.watches.get(all))?.lastPeriod ?? '') >= next.toISOString().slice(0, 13) || undefined,
      'the next hour judged',
    );
    expect(alertsOf('C_MARKETING', all)).toHaveLength(1);
    for (const id of [all, people]) await w.command('C_MARKETING', `watch remove ${id}`);
  }, 60_000);
});
