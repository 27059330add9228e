import { describe, expect, it } from 'vitest';
import { judgeAgainstNoise, NOISE_RULE, usualOf } from '../../src/kernel/robust-spike.js';

describe('a spike judged against the noise', () => {
  it('takes the median as the usual, and the scaled MAD as the noise, never below the counting noise', () => {
    expect(usualOf([100, 110, 90, 130])).toEqual({ usual: 105, spread: expect.closeTo(14.8, 1) });
    // Four identical weeks have no spread of their own: 100 visits still vary by about √100 by chance.
    expect(usualOf([100, 100, 100, 100]).spread).toBe(10);
    expect(usualOf([0, 0, 0, 0]).spread).toBe(1);
  });

  it('a doubling of a busy hour is a spike, stated in spreads; the same hour a little up is the usual', () => {
    const history = [120, 126, 114, 118];
    const spike = judgeAgainstNoise(240, history);
    expect(spike).toMatchObject({ kind: 'spike', usual: 119 });
    expect(spike.kind === 'spike' && spike.spreads).toBeGreaterThan(NOISE_RULE.minSpreads);
    expect(judgeAgainstNoise(140, history).kind).toBe('usual');
  });

  it('a quiet hour needs a change that matters: 5 visits where 2 are usual is not a spike', () => {
    expect(judgeAgainstNoise(5, [2, 1, 3, 2]).kind).toBe('usual');
    expect(judgeAgainstNoise(40, [2, 1, 3, 2]).kind).toBe('spike');
  });

  it('one odd week in the history (a holiday) does not move the usual', () => {
    expect(usualOf([200, 100, 210, 190]).usual).toBe(195);
    expect(judgeAgainstNoise(205, [200, 100, 210, 190]).kind).toBe('usual');
  });

  it('a fall as far and as large is a drop; too little history is unknown, with why', () => {
    expect(judgeAgainstNoise(20, [200, 210, 190, 205]).kind).toBe('drop');
    expect(judgeAgainstNoise(500, [100, 110])).toEqual({ kind: 'unknown', why: '2 of the 3 past periods needed' });
  });
});
