import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { driftBody, FaultInjector, truncateJson, validateFaults } from '../../src/demo-api/faults.js';

const kinds = (injector: FaultInjector, n: number, path = '/countries') =>
  Array.from({ length: n }, () => injector.decide(path).action.kind);

describe('FaultInjector', () => {
  it('passes everything without faults', () => {
    expect(kinds(new FaultInjector(1), 5)).toEqual(Array(5).fill('pass'));
  });

  it('answers 429 for the next `count` requests, then 500 for status500Until, then passes', () => {
    const injector = new FaultInjector(1, { rateLimit: { count: 2, retryAfterSeconds: 7 }, status500Until: 1 });
    const first = injector.decide('/x').action;
    expect(first).toEqual({ kind: 'rate-limit', status: 429, retryAfterSeconds: 7 });
    expect(kinds(injector, 4)).toEqual(['rate-limit', 'fail', 'pass', 'pass']);
    expect(injector.current.rateLimit?.count).toBe(0);
    expect(injector.current.status500Until).toBe(0);
  });

  it('applies only to the listed path prefixes, and does not count the others', () => {
    const injector = new FaultInjector(1, { status500Until: 1, paths: ['/security/'] });
    expect(kinds(injector, 3, '/countries')).toEqual(['pass', 'pass', 'pass']);
    expect(kinds(injector, 2, '/security/bot-status/v_x')).toEqual(['fail', 'pass']);
  });

  it('draws failRate from a seeded generator: the same sequence for the same seed, about the right share', () => {
    const a = kinds(new FaultInjector(4, { failRate: 0.3 }), 2000);
    const b = kinds(new FaultInjector(4, { failRate: 0.3 }), 2000);
    expect(a).toEqual(b);
    const share = a.filter((k) => k === 'fail').length / a.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
    const injector = new FaultInjector(4, { failRate: 0.3 });
    kinds(injector, 10);
    injector.set({ failRate: 0.3 });
    expect(kinds(injector, 2000)).toEqual(a);
  });

  it('reports hang, latency and the body transforms', () => {
    expect(new FaultInjector(1, { hang: true, latencyMs: 20 }).decide('/x')).toEqual({
      latencyMs: 20,
      action: { kind: 'hang' },
    });
    expect(new FaultInjector(1, { malformedJson: true }).decide('/x').action).toEqual({
      kind: 'pass',
      transform: 'malformed',
    });
    expect(new FaultInjector(1, { drift: true }).decide('/x').action).toEqual({ kind: 'pass', transform: 'drift' });
  });

  it('set replaces every fault', () => {
    const injector = new FaultInjector(1, { hang: true });
    injector.set({});
    expect(kinds(injector, 2)).toEqual(['pass', 'pass']);
  });
});

describe('validateFaults', () => {
  it.each([
    [{ latencyMs: -1 }, /latencyMs/],
    [{ failRate: 1.5 }, /failRate/],
    [{ status500Until: 1.5 }, /status500Until/],
    [{ rateLimit: { count: -1, retryAfterSeconds: 1 } }, /rateLimit.count/],
    [{ hang: 'yes' }, /hang must be a boolean/],
    [{ paths: '/countries' }, /paths/],
  ])('refuses %j', (faults, message) => {
    expect(() => validateFaults(faults as never)).toThrow(message);
  });

  it('copies, so later edits of the caller’s object do not leak in', () => {
    const faults = { paths: ['/a'], rateLimit: { count: 1, retryAfterSeconds: 1 } };
    const copy = validateFaults(faults);
    faults.paths.push('/b');
    faults.rateLimit.count = 9;
    expect(copy).toEqual({ paths: ['/a'], rateLimit: { count: 1, retryAfterSeconds: 1 } });
  });
});

describe('body transforms', () => {
  it('truncated JSON never parses (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.jsonValue(), { minLength: 0 }), fc.dictionary(fc.string(), fc.jsonValue())),
        (value) => {
          const truncated = truncateJson(JSON.stringify(value));
          try {
            JSON.parse(truncated);
            return false;
          } catch {
            return true;
          }
        },
      ),
    );
  });

  it('drift turns numbers into objects, flags into booleans and timestamps into numbers', () => {
    expect(driftBody([{ name: 'DE', total_visits: 3 }])).toEqual([{ name: 'DE', total_visits: { value: 3 } }]);
    expect(driftBody({ visitor_id: 'v', is_threat: 'True', adblock: 'No', vpn: 'Unknown' })).toEqual({
      visitor_id: 'v',
      is_threat: true,
      adblock: false,
      vpn: 'Unknown',
    });
    expect(driftBody([{ id: 'v', first_seen: '2026-01-01T00:00:00.000Z' }])).toEqual([
      { id: 'v', first_seen: Date.UTC(2026, 0, 1) },
    ]);
    expect(driftBody([])).toEqual([]);
  });
});
