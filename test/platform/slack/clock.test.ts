import { describe, expect, it } from 'vitest';
import { CheckFailed } from '../../../src/platform/ops.js';
import { ClockSkew, SKEW_EVIDENCE } from '../../../src/platform/slack/clock.js';
import { captureLogs } from '../../support/log-capture.js';

describe('ClockSkew', () => {
  const setup = () => {
    let t = 0;
    const { logger, lines } = captureLogs('info');
    const clock = new ClockSkew(logger, () => t);
    return { clock, lines, advance: (ms: number) => (t += ms) };
  };

  it(`judges the clock off after ${SKEW_EVIDENCE} timestamp refusals with none accepted since, by their median`, async () => {
    const { clock, lines } = setup();
    clock.refused(301);
    clock.refused(303);
    expect(clock.skew()).toBeUndefined();
    await expect(clock.check()).resolves.toBeUndefined();
    clock.refused(302);
    expect(clock.skew()).toBe(302);
    const failed = await clock.check().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CheckFailed);
    expect((failed as CheckFailed).state).toBe('skewed');
    expect((failed as CheckFailed).message).toMatch(/^this replica's clock is 302 s ahead of Slack's/);
    clock.refused(302);
    expect(lines.filter((l) => l.includes('every request from Slack is refused'))).toHaveLength(1);
  });

  it('an accepted request clears the evidence', () => {
    const { clock, lines } = setup();
    for (let i = 0; i < SKEW_EVIDENCE; i++) clock.refused(-400);
    expect(clock.skew()).toBe(-400);
    clock.accepted();
    expect(clock.skew()).toBeUndefined();
    expect(lines.some((l) => l.includes("agrees with Slack's again"))).toBe(true);
  });

  it('forgets refusals older than 10 minutes', () => {
    const { clock, advance } = setup();
    clock.refused(310);
    clock.refused(310);
    advance(10 * 60_000 + 1);
    clock.refused(310);
    expect(clock.skew()).toBeUndefined();
    clock.refused(310);
    clock.refused(310);
    expect(clock.skew()).toBe(310);
    advance(10 * 60_000 + 1);
    expect(clock.skew()).toBeUndefined();
  });
});
