import { MAX_RETRY_DELAY_SECONDS, WEBHOOK_TIMEOUT_SECONDS } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { DeliveryFailure } from './delivery-failure.js';
import { logUrl } from './log-url.js';

export interface CircuitSettings {
  /** Failed attempts in a row, over every queue sending to the endpoint, that open its circuit... */
  readonly failuresToOpen: number;
  /** ...once they span this long: a receiver down for a moment is left to the queues' own schedules. */
  readonly openAfterMs: number;
  /** The wait before the first probe of an open circuit; it doubles after each failed probe... */
  readonly firstProbeMs: number;
  /** ...up to this. */
  readonly maxProbeMs: number;
}

export const DEFAULT_CIRCUIT: CircuitSettings = { failuresToOpen: 5, openAfterMs: 30_000, firstProbeMs: 5_000, maxProbeMs: 300_000 };

/** Endpoints remembered at most: only failing ones are, and a success forgets one. */
const MAX_ENDPOINTS = 10_000;

/** A probe that never reported (its queue was dropped before it sent) no longer blocks the others after this. */
const PROBE_GRANT_MS = (WEBHOOK_TIMEOUT_SECONDS.max + 5) * 1000;

interface Endpoint {
  failures: number;
  /** When the run of failures began. */
  failingSince: number;
  /** A receiver's Retry-After: no attempt to it before this. */
  pausedUntil: number;
  open: boolean;
  /**
   * When the probe under way was let through: an attempt that started before it is no probe. Not
   * the time the circuit opened: an attempt admitted while it was still closed may start in the
   * same millisecond it opens, and its failure then freed a second probe while the first was still
   * in flight (two requests at once to a hanging endpoint, seen in cluster mode).
   */
  probeGrantedAt: number;
  probeEveryMs: number;
  nextProbeAt: number;
  /** Until when the probe granted last may be in flight; 0 when none is. */
  probingUntil: number;
}

/** What `record` changed, for the log. */
export type CircuitChange = 'opened' | 'closed' | null;

/**
 * Per-endpoint state shared by every queue of one process (a replica in cluster mode): a
 * receiver that failed `failuresToOpen` attempts in a row, whichever queues made them, over at
 * least `openAfterMs`, has its circuit opened. Then queues do not send to it: one probe at a time is let through, at an
 * interval doubling from `firstProbeMs` to `maxProbeMs`; the first success closes the circuit and
 * every queue goes on. A 429 or 503 with Retry-After pauses the endpoint for every queue, for what
 * it asked (within the bound). Queues wait for the endpoint without holding a request slot, so
 * other endpoints keep theirs. An endpoint is the webhook url without user info and query.
 * Only failing endpoints are kept, so in the steady state a delivery costs one look at an empty map.
 */
export class EndpointCircuits {
  private readonly settings: CircuitSettings;
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(settings: Partial<CircuitSettings> = {}) {
    this.settings = { ...DEFAULT_CIRCUIT, ...settings };
  }

  /**
   * 0 when an attempt to `url` may start now (as the probe, when the circuit is open: the caller
   * must then send and `record` its outcome), else the ms to wait before asking again.
   */
  admit(url: string, now: number): number {
    if (this.endpoints.size === 0) return 0;
    const endpoint = this.endpoints.get(logUrl(url));
    if (endpoint === undefined) return 0;
    if (now < endpoint.pausedUntil) return endpoint.pausedUntil - now;
    if (!endpoint.open) return 0;
    if (now < endpoint.probingUntil) return Math.min(endpoint.probeEveryMs, endpoint.probingUntil - now);
    if (now < endpoint.nextProbeAt) return endpoint.nextProbeAt - now;
    endpoint.probingUntil = now + PROBE_GRANT_MS;
    endpoint.probeGrantedAt = now;
    return 0;
  }

  /**
   * The outcome of an attempt to `url` that started at `startedAt`: null for a 2xx. A Retry-After
   * pauses the endpoint for at most `maxPauseMs` (the webhook's `maxDelaySeconds`).
   */
  record(url: string, failure: DeliveryFailure | null, startedAt: number, now: number, maxPauseMs = MAX_RETRY_DELAY_SECONDS * 1000): CircuitChange {
    if (failure === null) {
      if (this.endpoints.size === 0) return null;
      const key = logUrl(url);
      const open = this.endpoints.get(key)?.open ?? false;
      this.endpoints.delete(key);
      return open ? 'closed' : null;
    }
    const key = logUrl(url);
    let endpoint = this.endpoints.get(key);
    if (endpoint === undefined) {
      if (this.endpoints.size >= MAX_ENDPOINTS) this.endpoints.delete(this.endpoints.keys().next().value!);
      endpoint = { failures: 0, failingSince: now, pausedUntil: 0, open: false, probeGrantedAt: 0, probeEveryMs: 0, nextProbeAt: 0, probingUntil: 0 };
      this.endpoints.set(key, endpoint);
    }
    endpoint.failures++;
    if (failure.retryAfterMs !== undefined) {
      endpoint.pausedUntil = Math.max(endpoint.pausedUntil, now + Math.min(failure.retryAfterMs, maxPauseMs));
    }
    if (endpoint.open) {
      // The probe failed: wait longer. An attempt that started before the probe says nothing new.
      if (endpoint.probingUntil > 0 && startedAt >= endpoint.probeGrantedAt) {
        endpoint.probingUntil = 0;
        endpoint.probeEveryMs = Math.min(endpoint.probeEveryMs * 2, this.settings.maxProbeMs);
        endpoint.nextProbeAt = now + endpoint.probeEveryMs;
      }
      return null;
    }
    if (endpoint.failures < this.settings.failuresToOpen || now - endpoint.failingSince < this.settings.openAfterMs) return null;
    endpoint.open = true;
    endpoint.probeEveryMs = this.settings.firstProbeMs;
    endpoint.nextProbeAt = now + endpoint.probeEveryMs;
    return 'opened';
  }

  /** Whether the endpoint's circuit is open now (for tests and the logs). */
  isOpen(url: string): boolean {
    return this.endpoints.get(logUrl(url))?.open ?? false;
  }
}

/** One log line per change of a circuit, naming the endpoint as log lines may (`logUrl`). */
export function logCircuit(log: Logger, change: Exclude<CircuitChange, null>, url: string): void {
  if (change === 'opened') log.warn({ url: logUrl(url) }, 'webhook endpoint keeps failing: its circuit is open, one probe at a time');
  else log.info({ url: logUrl(url) }, 'webhook endpoint answered again: its circuit is closed');
}
