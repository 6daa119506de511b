import { guardedAgent } from '@switchboard/engine-pod';
import { OutboundPolicy } from '@switchboard/kube';
import { isReservedHeaderName, type RetriesConfig, WEBHOOK_TIMEOUT_SECONDS, type WebhookConfig } from '@switchboard/protocol';
import type { Dispatcher } from 'undici';
import { type DeliveryFailure, errorFailure, statusFailure, timeoutFailure } from './delivery-failure.js';
import { newRequestId } from './request-id.js';
import { honourRetryAfter, parseRetryAfter, resolveRetries, retryDelayMs } from './retry-schedule.js';
import { HEADER_HMAC, HEADER_HMAC_ALGORITHM, HEADER_REQUEST_ID, HEADER_TIMESTAMP, HMAC_ALGORITHM, signBody } from './signature.js';
import { STANDARD_WEBHOOKS, standardWebhookHeaders } from './standard-webhooks.js';

export interface WebhookSenderOptions {
  /** Per request, until the response status arrives, for webhooks that set no `timeoutSeconds`. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  /** Where deliveries may connect; default: the built-in rules only. */
  readonly policy?: OutboundPolicy;
}

/** An answer body longer than this is not read to its end: the connection is dropped instead. */
const MAX_DRAINED_BYTES = 128 * 1024;

/**
 * One delivery attempt over HTTP, the same in both modes: the SQLite dispatcher (local mode) and
 * the JetStream worker (cluster mode) send through this, so receivers see the same requests.
 *
 * undici's dispatcher API (the client under Node's `fetch` and undici's `request`, without their
 * promise, stream and abort-signal layers) with a keep-alive agent: receivers keep their
 * connections between deliveries, one request at a time on each (no pipelining), as many
 * connections per receiver as there are requests in flight to it. Once the receiver is fast, the
 * request is most of a delivery's cost, and this layer costs about half of what `request` does.
 * Every connection is held to the outbound address policy (`guardedAgent`) on the address it
 * connects to, so a webhook host name that resolves inside is refused as `blocked_address`.
 */
export class WebhookSender {
  readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly agent: Dispatcher;

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_SECONDS.default * 1000;
    this.now = options.now ?? Date.now;
    this.agent = guardedAgent(options.policy ?? new OutboundPolicy(), { keepAliveTimeout: 30_000 });
  }

  /**
   * POSTs `body` to the target. Resolves to null on a 2xx answer, else to why the attempt
   * failed; never rejects. A redirect is a failure (undici follows none): followed, the POST
   * would turn into a GET elsewhere. `signal` aborts the attempt (a gateway shutting down). The
   * timeout counts from the call, connecting included, to the answer's status: when it passes
   * first, the attempt has failed. `eventId` is the envelope's id, which the Standard Webhooks
   * scheme signs and sends as webhook-id. The webhook's `timeoutSeconds` replaces the sender's timeout.
   */
  send(target: WebhookConfig, body: string | Uint8Array, eventId: string, signal?: AbortSignal): Promise<DeliveryFailure | null> {
    const timeoutMs = target.timeoutSeconds ? target.timeoutSeconds * 1000 : this.timeoutMs;
    return new Promise((resolve) => {
      const attempt = new Attempt(resolve, timeoutMs, this.now, signal);
      if (attempt.settled) return;
      try {
        const { origin, path } = urlParts(target.url);
        const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
        const headers = this.headersFor(target, bytes, eventId);
        // The body after a status is read within the same time, or the connection is dropped.
        this.agent.dispatch({ origin, path, method: 'POST', body: bytes, headers, bodyTimeout: timeoutMs }, attempt);
      } catch (error) {
        // A url or header value undici refuses: no request was made.
        attempt.fail(errorFailure(error));
      }
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    void this.agent.close().catch(() => undefined);
  }

  /**
   * Built per attempt: each request has its own id and send time. Custom headers come after the
   * others and replace one of the same name, whatever its case, but never one the gateway sets
   * itself (configs stored before those were refused, or a resource applied with kubectl, may
   * still name them).
   */
  private headersFor(target: WebhookConfig, body: Uint8Array, eventId: string): Record<string, string> {
    const now = this.now();
    let headers: Record<string, string> = {
      'content-type': 'application/json',
      [HEADER_REQUEST_ID_LC]: newRequestId(),
      [HEADER_TIMESTAMP_LC]: String(now),
    };
    const hmac = target.hmac;
    if (hmac?.scheme === STANDARD_WEBHOOKS) {
      headers = { ...headers, ...standardWebhookHeaders(hmac, eventId, body, now) };
    } else if (hmac?.key) {
      headers[HEADER_HMAC_LC] = signBody(body, hmac.key);
      headers[HEADER_HMAC_ALGORITHM_LC] = HMAC_ALGORITHM;
    }
    for (const { name, value } of target.customHeaders ?? []) {
      if (!isReservedHeaderName(name)) headers[name.toLowerCase()] = value;
    }
    return headers;
  }
}

/**
 * One attempt as undici's dispatch handler. The outcome is the answer's status, known when its
 * head arrives (which stops the timeout); the attempt settles once the body has been read and
 * dropped (up to a limit, within `bodyTimeout`), so the connection is free again for the queue's
 * next request. An error, the timeout or the caller's abort before the status settle it at once.
 */
class Attempt implements Dispatcher.DispatchHandler {
  settled = false;
  /** null for a 2xx, else the failure; undefined until the status arrives. */
  private outcome: DeliveryFailure | null | undefined;
  private controller: Dispatcher.DispatchController | null = null;
  private drained = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (failure: DeliveryFailure | null) => void,
    timeoutMs: number,
    private readonly now: () => number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.fail(timeoutFailure(timeoutMs)), timeoutMs);
    if (signal) {
      this.onAbort = () => this.fail(ABORTED);
      if (signal.aborted) this.onAbort();
      else signal.addEventListener('abort', this.onAbort);
    }
  }

  /** Settles (with the status when it came, else with `failure`) and stops the request. */
  fail(failure: DeliveryFailure): void {
    if (this.settle(this.outcome === undefined ? failure : this.outcome)) this.controller?.abort(new Error(failure.detail));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Connected after the attempt already failed (a slow connect that outlived the timeout).
    if (this.settled) controller.abort(new Error('attempt over'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx answers are interim: the real one follows.
    if (statusCode < 200) return;
    const retryAfter = statusCode === 429 || statusCode === 503 ? parseRetryAfter(headers['retry-after'], this.now()) : undefined;
    this.outcome = statusCode < 300 ? null : statusFailure(statusCode, retryAfter);
    clearTimeout(this.timer);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.drained += chunk.length;
    if (this.drained > MAX_DRAINED_BYTES) controller.abort(new Error('answer body too long'));
  }

  onResponseEnd(): void {
    // An answer always has a status first; `??` would take a 2xx's null for a missing one.
    this.settle(this.outcome === undefined ? { reason: 'refused', detail: 'no answer' } : this.outcome);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle(this.outcome === undefined ? errorFailure(error) : this.outcome);
  }

  /** True when this call settled the attempt. */
  private settle(failure: DeliveryFailure | null): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
    this.resolve(failure);
    return true;
  }
}

interface UrlParts {
  readonly origin: string;
  readonly path: string;
}

/** Parsed urls of the webhooks seen lately: every delivery of a queue goes to the same one. */
const parsedUrls = new Map<string, UrlParts>();

function urlParts(url: string): UrlParts {
  let parts = parsedUrls.get(url);
  if (parts === undefined) {
    const parsed = new URL(url);
    // User info is not sent, as undici's `request` did not send it either.
    parts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    // Bounded: edited configs would otherwise pile up for the life of the process.
    if (parsedUrls.size >= 1024) parsedUrls.clear();
    parsedUrls.set(url, parts);
  }
  return parts;
}

// Header names go out in lower case, as HTTP/2 requires and HTTP/1.1 allows.
const HEADER_REQUEST_ID_LC = HEADER_REQUEST_ID.toLowerCase();
const HEADER_TIMESTAMP_LC = HEADER_TIMESTAMP.toLowerCase();
const HEADER_HMAC_LC = HEADER_HMAC.toLowerCase();
const HEADER_HMAC_ALGORITHM_LC = HEADER_HMAC_ALGORITHM.toLowerCase();

/** The caller gave up (a gateway shutting down): the outcome is not recorded. */
const ABORTED: DeliveryFailure = { reason: 'refused', detail: 'aborted' };

/**
 * The retry decision after failed attempt number `attempt` (1 for the first): the wait in ms
 * before the next attempt, or null when that was the last one the webhook's `retries` allow. A
 * receiver's Retry-After lengthens the wait (`honourRetryAfter`); a 410 Gone ends the retries.
 */
export function retryAfterFailure(retries: RetriesConfig | null | undefined, attempt: number, failure?: DeliveryFailure): number | null {
  const schedule = resolveRetries(retries);
  if (attempt >= schedule.attempts || failure?.gone) return null;
  return honourRetryAfter(retryDelayMs(schedule, attempt), failure?.retryAfterMs, schedule);
}

/** The longest a receiver's Retry-After may pause the webhook: its `maxDelaySeconds`. */
export function maxPauseMs(retries: RetriesConfig | null | undefined): number {
  return resolveRetries(retries).maxDelaySeconds * 1000;
}
