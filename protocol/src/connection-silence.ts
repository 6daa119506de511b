/**
 * A connection gone silent (issue 31 §3): the service keeps the socket open but answers nothing.
 * Socket engines ping it and reconnect when nothing came back for this long; the session then
 * reports STARTING with a `reason` that begins with SILENCE_REASON_PREFIX, which the gateway counts
 * (`switchboard_session_silences_total`) and the operator turns into the resource's condition.
 * The GOWS engine reads the same variable under the same rules (engines/gows/internal/engine/silence.go).
 */
export const SILENCE_TIMEOUT_VARIABLE = 'SWITCHBOARD_SILENCE_TIMEOUT_MS';
export const DEFAULT_SILENCE_TIMEOUT_MS = 60_000;
/** Below a second a ping round trip on a slow link would count as silence. */
export const MIN_SILENCE_TIMEOUT_MS = 1_000;
/** Above two minutes whatsmeow's own keepalive (3 min) would act first, and a dead session stays WORKING too long. */
export const MAX_SILENCE_TIMEOUT_MS = 120_000;
export const SILENCE_REASON_PREFIX = 'silent:';

/** The variable's value in milliseconds; the default when unset. A wrong value throws, naming the variable and the range. */
export function silenceTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[SILENCE_TIMEOUT_VARIABLE];
  if (!raw) return DEFAULT_SILENCE_TIMEOUT_MS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < MIN_SILENCE_TIMEOUT_MS || value > MAX_SILENCE_TIMEOUT_MS) {
    throw new Error(
      `${SILENCE_TIMEOUT_VARIABLE}: must be a whole number of milliseconds from ${MIN_SILENCE_TIMEOUT_MS} to ${MAX_SILENCE_TIMEOUT_MS}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** The `reason` of the STARTING a silence leads to (GOWS writes the same words). */
export function silenceReason(timeoutMs: number): string {
  return `${SILENCE_REASON_PREFIX} nothing received from the messaging service for ${timeoutMs} ms; reconnecting`;
}

export function isSilenceReason(reason: unknown): boolean {
  return typeof reason === 'string' && reason.startsWith(SILENCE_REASON_PREFIX);
}
