import { describe, expect, it } from 'vitest';
import { computeSignature, signRequest, verifySignature } from '../../src/slack/signing.js';

// Slack's documented example ("Verifying requests from Slack").
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = 1531420618;
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
  '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
  '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
  '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const EXPECTED = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

describe('offline Slack request signing', () => {
  it("reproduces Slack's documented example signature", () => {
    expect(computeSignature(SECRET, BODY, TIMESTAMP)).toBe(EXPECTED);
    expect(signRequest(SECRET, BODY, TIMESTAMP)).toEqual({
      'x-slack-signature': EXPECTED,
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it('changes with the body, the timestamp and the secret', () => {
    expect(computeSignature(SECRET, `${BODY}x`, TIMESTAMP)).not.toBe(EXPECTED);
    expect(computeSignature(SECRET, BODY, TIMESTAMP + 1)).not.toBe(EXPECTED);
    expect(computeSignature(`${SECRET}0`, BODY, TIMESTAMP)).not.toBe(EXPECTED);
  });

  it('defaults the timestamp to now, in Unix seconds', () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = signRequest(SECRET, BODY);
    const ts = Number(headers['x-slack-request-timestamp']);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(before + 1);
    expect(headers['x-slack-signature']).toBe(computeSignature(SECRET, BODY, ts));
  });

  it('verifies within the 5-minute window and refuses outside it or when forged', () => {
    const headers = { signature: EXPECTED, timestamp: String(TIMESTAMP) };
    expect(verifySignature(SECRET, BODY, headers, TIMESTAMP + 300)).toBe(true);
    expect(verifySignature(SECRET, BODY, headers, TIMESTAMP + 301)).toBe(false);
    expect(verifySignature('wrong', BODY, headers, TIMESTAMP)).toBe(false);
    expect(verifySignature(SECRET, BODY, { signature: undefined, timestamp: String(TIMESTAMP) }, TIMESTAMP)).toBe(
      false,
    );
  });
});
