import { describe, expect, it } from 'vitest';
import { ChannelPace } from '../../../src/platform/deliveries/pace.js';

describe("ChannelPace: a channel posts at Slack's pace", () => {
  it('bursts when idle, then one post an interval', () => {
    const pace = new ChannelPace(3, 1000, 0);
    for (let i = 0; i < 3; i++) {
      expect(pace.waitMs(0)).toBe(0);
      pace.take(0);
    }
    expect(pace.waitMs(0)).toBe(1000);
    expect(pace.waitMs(400)).toBe(600);
  });

  it('counts the interval from the answer, not from when the post left: a slow post earns nothing in flight', () => {
    const pace = new ChannelPace(1, 1000, 0);
    pace.take(0);
    // Asked while the post is in flight: reading does not credit the flight time.
    expect(pace.waitMs(800)).toBe(200);
    pace.settle(900);
    expect(pace.waitMs(1000)).toBe(900);
    expect(pace.waitMs(1900)).toBe(0);
  });

  it('a 429 holds the channel for Retry-After and ends its bursts: the refused post spent no second token', () => {
    const pace = new ChannelPace(3, 1000, 0);
    pace.take(0);
    pace.settle(10);
    pace.take(10); // a second post of the burst, refused by Slack
    pace.hold(20, 1000);
    pace.settle(20);
    expect(pace.waitMs(500)).toBe(520);
    expect(pace.waitMs(1020)).toBe(0);
    pace.take(1020);
    pace.settle(1030);
    // Long idle no longer saves up a burst: Slack showed it takes one at a time.
    expect(pace.waitMs(10_000)).toBe(0);
    pace.take(10_000);
    expect(pace.waitMs(10_000)).toBe(1000);
  });
});
