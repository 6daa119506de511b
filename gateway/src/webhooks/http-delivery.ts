import type { RetriesConfig, WebhookConfig } from '@switchboard/protocol';
import { Agent, request } from 'undici';
import { newRequestId } from './request-id.js';
import { resolveRetries, retryDelayMs } from './retry-schedule.js';
import { HEADER_HMAC, HEADER_HMAC_ALGORITHM, HEADER_REQUEST_ID, HEADER_TIMESTAMP, HMAC_ALGORITHM, signBody } from './signature.js';

export interface WebhookSenderOptions {
  /** Per request, until the response status arrives. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/**
 * One delivery attempt over HTTP, the same in both modes: the SQLite dispatcher (local mode) and
 * the JetStream worker (cluster mode) send through this, so receivers see the same requests.
 *
 * undici's `request` (the client under Node's `fetch`, without the WHATWG layer) with a
 * keep-alive agent: receivers keep their connections between deliveries, and a request costs
 * about a third of what `fetch` does, which is most of a delivery's cost once the receiver is fast.
 */
export class WebhookSender {
  readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * POSTs `body` to the target. Resolves to null on a 2xx answer, else to the reason the attempt
   * failed; never rejects. A redirect is a failure (undici follows none): followed, the POST
   * would turn into a GET elsewhere. `signal` aborts the attempt (a gateway shutting down).
   */
  async send(target: WebhookConfig, body: string, signal?: AbortSignal): Promise<string | null> {
    const bytes = Buffer.from(body, 'utf8');
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.timeoutMs);
    const stop = () => abort.abort();
    signal?.addEventListener('abort', stop);
    try {
      const response = await request(target.url, {
        method: 'POST',
        body: bytes,
        headers: this.headersFor(target, bytes),
        dispatcher: this.agent,
        signal: abort.signal,
      });
      // Nobody reads the answer's body; draining it returns the connection to the pool.
      response.body.dump().catch(() => undefined);
      const status = response.statusCode;
      return status >= 200 && status < 300 ? null : `HTTP ${status}`;
    } catch (error) {
      if (timedOut) return `timeout after ${this.timeoutMs} ms`;
      if (abort.signal.aborted) return 'aborted';
      return reason(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    void this.agent.close().catch(() => undefined);
  }

  /**
   * Built per attempt: each request has its own id and send time. Custom headers come after the
   * others and replace one of the same name, whatever its case.
   */
  private headersFor(target: WebhookConfig, body: Uint8Array): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [HEADER_REQUEST_ID_LC]: newRequestId(),
      [HEADER_TIMESTAMP_LC]: String(this.now()),
    };
    const key = target.hmac?.key;
    if (key) {
      headers[HEADER_HMAC_LC] = signBody(body, key);
      headers[HEADER_HMAC_ALGORITHM_LC] = HMAC_ALGORITHM;
    }
    for (const { name, value } of target.customHeaders ?? []) {
      // The body's length is not a header a config may change.
      if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = value;
    }
    return headers;
  }
}

// Header names go out in lower case, as HTTP/2 requires and HTTP/1.1 allows.
const HEADER_REQUEST_ID_LC = HEADER_REQUEST_ID.toLowerCase();
const HEADER_TIMESTAMP_LC = HEADER_TIMESTAMP.toLowerCase();
const HEADER_HMAC_LC = HEADER_HMAC.toLowerCase();
const HEADER_HMAC_ALGORITHM_LC = HEADER_HMAC_ALGORITHM.toLowerCase();

/** A short cause without request details: the error code when there is one (on the error or its cause). */
function reason(error: unknown): string {
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof code === 'string' && !code.startsWith('UND_ERR_')) return code;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof code === 'string') return code;
  return typeof message === 'string' ? message : String(error);
}

/**
 * The retry decision after failed attempt number `attempt` (1 for the first): the wait in ms
 * before the next attempt, or null when that was the last one the webhook's `retries` allow.
 */
export function retryAfterFailure(retries: RetriesConfig | null | undefined, attempt: number): number | null {
  const schedule = resolveRetries(retries);
  return attempt >= schedule.attempts ? null : retryDelayMs(schedule, attempt);
}
