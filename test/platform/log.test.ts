import { describe, expect, it } from 'vitest';
import { lazyChild } from '../../src/platform/log.js';
import { captureLogs } from '../support/log-capture.js';

describe('lazyChild', () => {
  it('writes with its bindings, made once, when it first writes', () => {
    const { logger, lines } = captureLogs('info');
    let made = 0;
    const log = lazyChild(logger, () => ({ requestId: `r${++made}` }));
    log.debug('not written');
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(log.level).toBe('info');
    expect(made).toBe(0);
    log.info({ user: 'U1' }, 'first');
    log.warn('second');
    expect(made).toBe(1);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ requestId: 'r1', user: 'U1', msg: 'first' }),
      expect.objectContaining({ requestId: 'r1', msg: 'second' }),
    ]);
  });

  it('redacts as its parent does, and its own children carry its bindings', () => {
    const { logger, lines } = captureLogs('debug');
    const log = lazyChild(logger, () => ({ requestId: 'r1' }));
    log.child({ component: 'x' }).debug({ token: 'xoxb-secret' }, 'a line');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('xoxb-secret');
    expect(JSON.parse(lines[0]!)).toEqual(expect.objectContaining({ requestId: 'r1', component: 'x' }));
  });
});
