/**
 * What is limited is what a person costs the analytics API (issue 26: 60 trend commands
 * and 20 watches in a minute made 4,700 API requests under a limit of 30 commands).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ApiBudget, chargedTo, currentBudget, currentWork, forPerson } from '../../../src/platform/api/budget.js';
import { isProgressNote } from '../../support/answers.js';
import { CHANNEL, mrkdwnOf, sandbox, USER, type Sandbox } from '../../support/sandbox.js';

let box: Sandbox & { logs: string[] };
const BUDGET = 300;

beforeAll(async () => {
  box = await sandbox({ settings: { USER_RATE_LIMIT: BUDGET } });
});
afterAll(() => box?.stop());

it("one person's burst of long, varied trends causes at most their budget of API requests, and each refusal names it", async () => {
  const countries = ['US', 'DE', 'FR', 'GB', 'NL', 'SE', 'JP', 'BR', 'IN', 'CA', 'ES', 'IT'];
  const start = box.demo!.requests.length;
  let refused = 0;
  for (const [i, country] of countries.entries()) {
    for (const report of ['sources', 'pages']) {
      const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
      await box.slack.slash(
        CHANNEL,
        USER,
        `trend ${report} last30d country:${country}${i % 2 ? ' device:mobile' : ''}`,
      );
      const answer = await box.slack.waitFor(
        () =>
          box.slack
            .messages(CHANNEL, { user: USER })
            .find((m) => !before.has(m.ts) && !isProgressNote(m) && m.ephemeralTo === USER),
        30_000,
      );
      if (/one person may make/.test(mrkdwnOf(answer).join(' '))) refused++;
    }
  }
  const made = box.demo!.requests.length - start;
  expect(refused).toBeGreaterThan(0);
  expect(made).toBeLessThanOrEqual(BUDGET);
});

it("the workspace's budget serves people at once and makes background work wait for a token", async () => {
  vi.useFakeTimers();
  try {
    const budget = new ApiBudget(60);
    // A person spends the whole minute and half as much again: never made to wait.
    await forPerson(async () => {
      for (let i = 0; i < 90; i++) await budget.acquire('person');
    });
    let done = false;
    const background = budget.acquire('background').then(() => (done = true));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(done).toBe(false);
    expect(budget.waiting).toBe(1);
    // The overdraft of 30 and one token come back at one a second.
    await vi.advanceTimersByTimeAsync(6_000);
    await background;
    expect(done).toBe(true);
    expect([budget.waiting, budget.waited]).toEqual([0, 1]);
  } finally {
    vi.useRealTimers();
  }
});

it("a person's work and a workspace's budget hold across awaits, whichever is entered first", async () => {
  const budget = new ApiBudget(60);
  const seen = async () => {
    await Promise.resolve();
    return { work: currentWork()?.who, budget: currentBudget() };
  };
  expect(await seen()).toEqual({ work: undefined, budget: undefined });
  const inside = await chargedTo(budget, () => forPerson(seen));
  expect(inside.value).toEqual({ work: 'person', budget });
  const outside = await forPerson(() => chargedTo(budget, seen));
  expect(outside.value).toEqual({ work: 'person', budget });
});
