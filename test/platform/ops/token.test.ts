import { describe, expect, it } from 'vitest';
import { bearerMatches } from '../../../src/platform/ops.js';

describe('bearerMatches', () => {
  const token = 'a-token-of-some-length';
  it.each([
    [`Bearer ${token}`, true],
    [`bearer ${token}`, true],
    [`Bearer  ${token} `, true],
    [undefined, false],
    ['', false],
    [token, false],
    [`Basic ${token}`, false],
    [`Bearer ${token}x`, false],
    [`Bearer ${token.slice(1)}`, false],
    [`Bearer ${token} extra`, false],
    ['Bearer ', false],
  ])('%j → %s', (header, expected) => {
    expect(bearerMatches(header, token)).toBe(expected);
  });
});
