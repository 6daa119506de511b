import { type Logger, pino } from 'pino';

/** JSON lines on stdout, one logger for the whole operator. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { component: 'switchboard-operator' } });
}
