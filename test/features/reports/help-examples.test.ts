import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { helpText } from '../../../src/features/reports/help.js';
import { sandbox, tableOf, textsOf, type Sandbox } from '../../support/sandbox.js';

/** Every `/traffic` example that help teaches, run against the demo API: each finds rows. */
const TOPICS = [undefined, 'filters', 'examples', 'ranges', 'sort', ...Object.keys(REPORTS)];
const examples = [
  ...new Set(
    TOPICS.flatMap((t) => helpText(t, REPORTS))
      .flatMap((line) => [...line.matchAll(/\/traffic ([a-z][^;]*?)(?:\s*$|;)/g)].map((m) => m[1]!.trim()))
      .filter((text) => !/[<>[\]|…]/.test(text)),
  ),
];

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox({ scheduler: false });
});
afterAll(() => box?.stop());

describe('the examples in /traffic help', () => {
  it('are found in help (there are some)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    expect(examples).toContain('pages country:Germany,France page~/pricing or country.code:GB');
  });

  it.each(examples)('/traffic %s returns rows from the demo API', async (text) => {
    const before = new Set(box.slack.messages('C_MARKETING').map((m) => m.ts));
    await box.slack.slash('C_MARKETING', 'U_ALICE', text);
    const answer = await box.slack.waitFor(() =>
      box.slack.messages('C_MARKETING', { user: 'U_ALICE' }).find((m) => !before.has(m.ts) && m.user !== 'U_ALICE'),
    );
    expect(textsOf(answer).join(' ')).not.toMatch(/No data|No rows/);
    expect(tableOf(answer).length, textsOf(answer).join(' ')).toBeGreaterThan(1);
  });

  it('an empty answer under codes given as names says which field takes codes', async () => {
    await box.slack.slash('C_GENERAL', 'U_ALICE', 'pages country:US,CA');
    const answer = await box.slack.waitFor(() =>
      box.slack.messages('C_GENERAL', { user: 'U_ALICE' }).find((m) => m.user !== 'U_ALICE'),
    );
    expect(textsOf(answer).join(' ')).toContain(
      '`country:US,CA` matches country names; for codes, say `country.code:US,CA`.',
    );
  });
});
