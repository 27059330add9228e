import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log.js';
import { boltLogger } from '../../../src/platform/slack/bolt-logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const log = createLogger({ level }, { write: (line: string) => void lines.push(line) });
  return { lines, log };
}

describe("Bolt's logger", () => {
  it('cuts every secret out of what Bolt logs, in strings, objects and errors', () => {
    const { lines, log } = capture('debug');
    const bolt = boltLogger(log, ['xoxb-secret-token', 'signing-secret']);
    bolt.error('failed with', { token: 'xoxb-secret-token' }, new Error('bad signing-secret'));
    bolt.debug('debug xoxb-secret-token');
    expect(lines).toHaveLength(2);
    expect(lines.join('')).not.toMatch(/xoxb-secret-token|signing-secret/);
    expect(JSON.parse(lines[0]!).msg).toContain('[redacted]');
  });

  it('writes nothing below its level, and never turns those arguments into text', () => {
    const { lines, log } = capture('info');
    const bolt = boltLogger(log, ['s3cret']);
    let read = 0;
    const costly = { toJSON: () => (read++, 's3cret') };
    bolt.debug('per request', costly);
    expect(lines).toEqual([]);
    expect(read).toBe(0);
    bolt.warn('kept', costly);
    expect(read).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, component: 'bolt', msg: 'kept "[redacted]"' });
  });
});
