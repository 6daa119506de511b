import { type DestinationStream, pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { maskUrl } from './sessions/config-secrets.js';

/**
 * Paths that may hold a secret are censored wherever they appear in a log line: keys are
 * never logged, even by a debug statement added later.
 */
const REDACT = [
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  // OAuth 2.0 bearer tokens are credentials as well.
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  // An ApiKeyDTO as answered on creation carries the secret as `key`.
  '*.key',
  'hmac',
  '*.hmac',
  '*.apiKey',
  'config.webhooks[*].hmac',
  // Custom header values are a receiver's credentials; a session config or a resource spec
  // logged whole must not show them (nor its webhook urls, which may carry tokens).
  'customHeaders',
  '*.customHeaders',
  'config.webhooks[*].customHeaders',
  'spec.config.webhooks[*].hmac',
  'spec.config.webhooks[*].customHeaders',
  // Urls keep what tells the receiver apart; their user info and query values are masked.
  '*.url',
  'config.webhooks[*].url',
  'spec.config.webhooks[*].url',
];

function censor(value: unknown, path: string[]): unknown {
  return path.at(-1) === 'url' && typeof value === 'string' ? maskUrl(value) : '[redacted]';
}

/** `json`: one JSON object a line, for log collectors. `pretty`: readable lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * Logs to stdout, or to `destination` (a test reading what would be logged). `pretty` formats in
 * this thread (no transport worker), so a line is out before a crash, as a JSON line is.
 */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const stream =
    format === 'pretty'
      ? pretty({
          destination: destination ?? 1,
          sync: true,
          colorize: destination === undefined && process.stdout.isTTY,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : destination;
  return pino({ level, redact: { paths: REDACT, censor } }, stream);
}
