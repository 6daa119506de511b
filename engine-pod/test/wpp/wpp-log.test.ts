// WPPConnect's own log, through the real winston it was built with, lands in the engine's log:
// warnings and errors, tagged, and not its step-by-step info.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type Winston, wppLogger } from '../../src/engines/wpp/wpp-log.js';

const fromWpp = createRequire(createRequire(import.meta.url).resolve('@wppconnect-team/wppconnect'));
const winston = fromWpp('winston') as Winston;

interface Line {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg?: string;
}

describe("WPPConnect's log", () => {
  it('passes its warnings and errors to the engine log with their fields, and leaves its info out', () => {
    const lines: Line[] = [];
    const log = {
      info: (obj: object, msg?: string) => lines.push({ level: 'info', obj, msg }),
      warn: (obj: object, msg?: string) => lines.push({ level: 'warn', obj, msg }),
      error: (obj: object, msg?: string) => lines.push({ level: 'error', obj, msg }),
    };
    const logger = wppLogger(winston, log) as Record<'info' | 'warn' | 'error' | 'http', (message: string, meta?: object) => void>;
    logger.info('Checking page...', { session: 'switchboard', type: 'page' });
    logger.http('injecting wa-js');
    logger.warn('Chrome not found, using chromium', { session: 'switchboard', type: 'browser' });
    logger.error('Error no open browser', { session: 'switchboard', type: 'browser' });
    expect(lines).toEqual([
      { level: 'warn', obj: { wppconnect: { session: 'switchboard', type: 'browser' } }, msg: 'Chrome not found, using chromium' },
      { level: 'error', obj: { wppconnect: { session: 'switchboard', type: 'browser' } }, msg: 'Error no open browser' },
    ]);
  });
});
