import { pino } from 'pino';

/** Silent unless SWITCHBOARD_TEST_LOG_LEVEL asks for the operator's logs (e.g. `debug`). */
export const testLog = pino({ level: process.env.SWITCHBOARD_TEST_LOG_LEVEL ?? 'silent' });
