import { pino, type Bindings, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Field names whose values never reach a log line, wherever they appear. */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'appToken',
  '*.appToken',
  'signingSecret',
  '*.signingSecret',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-slack-signature"]',
  '*.headers["x-slack-signature"]',
  'password',
  '*.password',
];

export function createLogger(options: { level?: string; name?: string } = {}, destination?: DestinationStream): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name ?? 'lookout',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: undefined,
    },
    destination,
  );
}

/**
 * `parent.child(bindings())`, made when a line is first written at a level `parent` writes: a
 * request's logger, which most requests never write to. Making a child serializes and redacts
 * its bindings (about 50 µs, `npm run bench -- ack`).
 */
export function lazyChild(parent: Logger, bindings: () => Bindings): Logger {
  let child: Logger | undefined;
  const bound = (owner: Logger, key: string | symbol): unknown => {
    const value = Reflect.get(owner, key, owner) as unknown;
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(owner) : value;
  };
  return new Proxy(parent, {
    get(target, key) {
      // The parent answers what the child would, until there is one: its level, and a level it does not write (a no-op).
      if (
        child === undefined &&
        (ASKED_OF_PARENT.has(key) ||
          (typeof key === 'string' && key in target.levels.values && !target.isLevelEnabled(key)))
      )
        return bound(target, key);
      child ??= parent.child(bindings());
      return bound(child, key);
    },
    set(_target, key, value) {
      child ??= parent.child(bindings());
      return Reflect.set(child, key, value);
    },
  });
}

const ASKED_OF_PARENT = new Set<string | symbol>(['level', 'levels', 'isLevelEnabled']);

/** A logger that drops everything, for code paths that were given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
