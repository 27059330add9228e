import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/platform/log.js';

/** A real pino logger whose lines are kept for assertions. */
export function captureLogs(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level }, stream), lines };
}
