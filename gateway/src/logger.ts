import { pino, type Logger } from 'pino';

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
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
