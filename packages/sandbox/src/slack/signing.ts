import { createHmac, timingSafeEqual } from 'node:crypto';

/** The two headers Slack puts on every request it sends to an app. */
export interface SignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
}

/** Unix seconds, as Slack writes them into `x-slack-request-timestamp`. */
export function unixSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}

/** `v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`): Slack's v0 request signature. */
export function computeSignature(signingSecret: string, body: string, timestamp: number | string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:${body}`);
  return `v0=${hmac.digest('hex')}`;
}

/**
 * The headers Slack would send with `body` (the exact raw bytes that go on the wire).
 * `timestamp` is in Unix seconds and defaults to now.
 */
export function signRequest(signingSecret: string, body: string, timestamp: number = unixSeconds()): SignatureHeaders {
  return {
    'x-slack-signature': computeSignature(signingSecret, body, timestamp),
    'x-slack-request-timestamp': String(timestamp),
  };
}

/** Constant-time check of a signature against `body`, with Slack's 5-minute replay window. */
export function verifySignature(
  signingSecret: string,
  body: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  nowSeconds: number = unixSeconds(),
  toleranceSeconds = 300,
): boolean {
  const ts = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(ts)) return false;
  if (Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(computeSignature(signingSecret, body, ts));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
