/**
 * The engine and status names as plain constants, without zod: the schemas (engines.ts,
 * status.ts) are made from them, and the dashboard's bundle imports them from
 * `@switchboard/protocol/names` so its lists are the gateway's without zod in the browser.
 */

/** Engine identifiers of the interface: the four of spec part 1 plus SANDBOX, our simulated account. */
export const ENGINE_NAMES = ['WEBJS', 'WPP', 'NOWEB', 'GOWS', 'SANDBOX'] as const;

/**
 * The engines this build has; `ENGINE_CATALOG` (engine-catalog.ts) says what each does. Every
 * other name of the interface is refused: by the gateway with a 422 listing these, by the
 * operator with `EngineNotAvailable`, and the CRD's `spec.engine` enum leaves it out.
 */
export const BUILT_ENGINES = ['SANDBOX', 'NOWEB', 'WEBJS', 'GOWS', 'WPP'] as const satisfies readonly (typeof ENGINE_NAMES)[number][];

/** A session's statuses, in the order a session goes through them (SessionStatus, status.ts). */
export const SESSION_STATUSES = [
  'STOPPED',
  'STARTING',
  'SCAN_QR_CODE',
  'PASSKEY_REQUIRED',
  'PASSKEY_CONFIRMATION_REQUIRED',
  'WORKING',
  'FAILED',
] as const;
