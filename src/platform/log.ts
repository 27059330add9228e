import { pino, type Logger, type DestinationStream } from 'pino';

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

/** A logger that drops everything, for code paths that were given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
