import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../log.js';

/**
 * Bolt's logger interface, written to our pino logger. Bolt logs free-form
 * arguments; any secret value handed in here is cut out of them as well.
 */
export function boltLogger(log: Logger, secrets: readonly string[]): BoltLogger {
  let level = LogLevel.INFO;
  const scrub = (args: unknown[]) => {
    let text = args
      .map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : JSON.stringify(a)))
      .join(' ');
    for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
    return text;
  };
  const child = log.child({ component: 'bolt' });
  return {
    debug: (...args) => child.debug(scrub(args)),
    info: (...args) => child.info(scrub(args)),
    warn: (...args) => child.warn(scrub(args)),
    error: (...args) => child.error(scrub(args)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
