import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../log.js';

/**
 * Bolt's logger interface, written to our pino logger. Bolt logs free-form
 * arguments; any secret value handed in here is cut out of them as well. An error
 * that is `expected` (a refusal the caller logs itself, at warn) is not written.
 */
export function boltLogger(
  log: Logger,
  secrets: readonly string[],
  { expected }: { expected?: (error: unknown) => boolean } = {},
): BoltLogger {
  let level = LogLevel.INFO;
  const scrub = (args: unknown[]) => {
    let text = args
      .map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : JSON.stringify(a)))
      .join(' ');
    for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
    return text;
  };
  const child = log.child({ component: 'bolt' });
  // Bolt writes debug lines on every request: their arguments are only turned into text when they will be written.
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      if (child.isLevelEnabled(level)) child[level](scrub(args));
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: (...args: unknown[]) => {
      if (!(args.length === 1 && expected?.(args[0]))) write('error')(...args);
    },
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
