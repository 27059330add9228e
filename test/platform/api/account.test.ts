import { describe, expect, it } from 'vitest';
import { accountOf } from '../../../src/platform/api/account.js';

describe('an analytics account in the store', () => {
  it('is one name (a hash) for one URL and key, another for another', () => {
    const key = 'sk_live_very_secret_1234';
    const one = accountOf('https://api.example.com/v1', key);
    expect(accountOf('https://api.example.com/v1/', key)).toBe(one);
    expect(accountOf(' https://api.example.com/v1 ', key)).toBe(one);
    expect(accountOf('https://api.example.com/v1', 'sk_live_other')).not.toBe(one);
    expect(accountOf('https://api.example.com/v2', key)).not.toBe(one);
    expect(one).toMatch(/^[0-9a-f]{24}$/);
  });
});
