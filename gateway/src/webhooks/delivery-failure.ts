import { blockedAddressOf } from '@switchboard/engine-pod';
import { describeRefusal } from '@switchboard/kube';
import { DeliveryFailureReason } from '@switchboard/protocol';

/** A failed attempt: the coarse reason the API shows, and the details only the logs get. */
export interface DeliveryFailure {
  readonly reason: DeliveryFailureReason;
  /** The status, the error code or the refused address, for the logs. */
  readonly detail: string;
  /** A 429 or 503 whose Retry-After asked to wait this long before the next attempt. */
  readonly retryAfterMs?: number;
  /** A 410 Gone: the receiver wants no more deliveries, so the webhook is disabled. */
  readonly gone?: boolean;
}

/**
 * An answer that is not a 2xx: its class for 4xx and 5xx, else (a redirect) not taken. A 429 or
 * 503 carries the wait its Retry-After asked for; a 410 says the receiver is gone.
 */
export function statusFailure(statusCode: number, retryAfterMs?: number): DeliveryFailure {
  const reason = statusCode >= 500 ? 'http_5xx' : statusCode >= 400 ? 'http_4xx' : 'refused';
  const failure = { reason, detail: `HTTP ${statusCode}` } as const;
  if (statusCode === 410) return { reason: 'gone', detail: 'HTTP 410', gone: true };
  if ((statusCode === 429 || statusCode === 503) && retryAfterMs !== undefined) return { ...failure, retryAfterMs };
  return failure;
}

export function timeoutFailure(timeoutMs: number): DeliveryFailure {
  return { reason: 'timeout', detail: `timeout after ${timeoutMs} ms` };
}

/** Cluster mode: a Secret the webhook names cannot be read (`detail` says which, and why). */
export function secretFailure(detail: string): DeliveryFailure {
  return { reason: 'secret_unavailable', detail };
}

/** undici's and the socket's own timeouts, as against our timer's. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** A request that got no answer: refused by the policy, timed out, or any network error. */
export function errorFailure(error: unknown): DeliveryFailure {
  const refusal = blockedAddressOf(error);
  if (refusal) return { reason: 'blocked_address', detail: describeRefusal(refusal) };
  const detail = errorCode(error);
  return { reason: TIMEOUT_CODES.has(detail) ? 'timeout' : 'refused', detail };
}

/**
 * The reason to show for a stored failure. Deliveries that died before the reasons were coarse
 * hold the details ("HTTP 503", "ECONNREFUSED"): they are shown by their class too.
 */
export function storedFailureReason(stored: string | null): DeliveryFailureReason | null {
  if (stored === null) return null;
  const known = DeliveryFailureReason.safeParse(stored);
  if (known.success) return known.data;
  const status = /^HTTP (\d{3})$/.exec(stored)?.[1];
  if (status !== undefined) return statusFailure(Number(status)).reason;
  return stored.startsWith('timeout') || TIMEOUT_CODES.has(stored) ? 'timeout' : 'refused';
}

/** A short cause without request details: the error code when there is one (on the error or its cause). */
function errorCode(error: unknown): string {
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof code === 'string' && !code.startsWith('UND_ERR_')) return code;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof code === 'string') return code;
  return typeof message === 'string' ? message : String(error);
}
