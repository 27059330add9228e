import { ErrorCode, WebAPIRateLimitedError } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { remedyOf, retryDelayMs } from '../../../src/platform/deliveries/outcome.js';

const platform = (error: string) => ({ code: ErrorCode.PlatformError, data: { ok: false, error } });

describe('remedyOf', () => {
  it('retries what Slack will get over, honouring Retry-After', () => {
    expect(remedyOf(new WebAPIRateLimitedError(7))).toEqual({ kind: 'retry', reason: 'ratelimited', afterMs: 7_000 });
    expect(remedyOf({ code: ErrorCode.HTTPError, statusCode: 502 })).toEqual({ kind: 'retry', reason: 'HTTP 502' });
    expect(remedyOf(platform('internal_error'))).toEqual({ kind: 'retry', reason: 'internal_error' });
    expect(
      remedyOf({ code: ErrorCode.RequestError, original: new Error('The operation was aborted due to timeout') }),
    ).toEqual({ kind: 'retry', reason: 'timed out' });
    expect(remedyOf({ code: ErrorCode.RequestError, original: new Error('ECONNREFUSED') })).toEqual({
      kind: 'retry',
      reason: 'could not reach Slack',
    });
    expect(remedyOf(new Error('socket hang up'))).toEqual({ kind: 'retry', reason: 'socket hang up' });
  });

  it('posts refused blocks once more as plain text', () => {
    for (const reason of ['invalid_blocks', 'msg_too_long', 'invalid_blocks_format'])
      expect(remedyOf(platform(reason))).toEqual({ kind: 'plain', reason });
  });

  it('gives up on refusals, saying when the channel itself is the problem', () => {
    for (const reason of ['channel_not_found', 'not_in_channel', 'is_archived'])
      expect(remedyOf(platform(reason))).toEqual({ kind: 'refused', reason, channel: true });
    expect(remedyOf(platform('invalid_auth'))).toEqual({ kind: 'refused', reason: 'invalid_auth', channel: false });
    expect(remedyOf({ code: ErrorCode.HTTPError, statusCode: 404 })).toEqual({
      kind: 'refused',
      reason: 'HTTP 404',
      channel: false,
    });
  });
});

describe('retryDelayMs', () => {
  it('doubles from 1 s to at most 5 minutes, within ±20%, and never before Retry-After', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 0, 0.5))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(30, 0, 0.5)).toBe(300_000);
    expect(retryDelayMs(1, 0, 0)).toBe(800);
    expect(retryDelayMs(1, 0, 0.999)).toBeLessThanOrEqual(1_200);
    expect(retryDelayMs(1, 30_000, 0.5)).toBe(30_000);
  });
});
