import type { EngineLog } from '../../engine.js';

/** The part of winston (WPPConnect's logger library, in the version it was built with) used here. */
export interface Winston {
  createLogger(options: { level: string; transports: unknown[] }): unknown;
  readonly Transport: new (options?: object) => { log?(info: object, next: () => void): void };
}

interface WinstonInfo {
  readonly level: string;
  readonly message: unknown;
  readonly [field: string]: unknown;
}

/**
 * WPPConnect's logger, into the engine's log: its warnings and errors (a browser it could not open,
 * a deprecated call) at the same level, tagged `wppconnect`. Its info and below are a line per
 * step of every start and are left out, as the engine logs the steps that matter itself.
 */
export function wppLogger(winston: Winston, log: EngineLog): unknown {
  class ToEngineLog extends winston.Transport {
    override log(info: object, next: () => void): void {
      const { level, message, ...fields } = info as WinstonInfo;
      // Winston's own symbol-keyed copies (level, splat, the formatted line) are not the event's fields.
      const entry = { wppconnect: Object.fromEntries(Object.entries(fields)) };
      if (level === 'error') log.error(entry, String(message));
      else log.warn(entry, String(message));
      next();
    }
  }
  return winston.createLogger({ level: 'warn', transports: [new ToEngineLog()] });
}
