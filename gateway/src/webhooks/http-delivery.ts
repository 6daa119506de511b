import type { RetriesConfig, WebhookConfig } from '@switchboard/protocol';
import { ulid } from 'ulid';
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
 */
export class WebhookSender {
  readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * POSTs `body` to the target. Resolves to null on a 2xx answer, else to the reason the attempt
   * failed; never rejects. `signal` aborts the attempt (a gateway shutting down).
   */
  async send(target: WebhookConfig, body: string, signal?: AbortSignal): Promise<string | null> {
    try {
      const bytes = Buffer.from(body, 'utf8');
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const response = await fetch(target.url, {
        method: 'POST',
        body: bytes,
        headers: this.headersFor(target, bytes),
        // A redirected POST would turn into a GET elsewhere; a 3xx counts as a failure instead.
        redirect: 'manual',
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      // Nobody reads the answer's body; discarding it frees the connection for the next request.
      await response.body?.cancel().catch(() => undefined);
      return response.status >= 200 && response.status < 300 ? null : `HTTP ${response.status}`;
    } catch (error) {
      return this.reason(error);
    }
  }

  /** Built per attempt: each request has its own id and send time. Custom headers go last and win. */
  private headersFor(target: WebhookConfig, body: Uint8Array): Headers {
    const headers = new Headers({
      'Content-Type': 'application/json',
      [HEADER_REQUEST_ID]: `req_${ulid().toLowerCase()}`,
      [HEADER_TIMESTAMP]: String(this.now()),
    });
    const key = target.hmac?.key;
    if (key) {
      headers.set(HEADER_HMAC, signBody(body, key));
      headers.set(HEADER_HMAC_ALGORITHM, HMAC_ALGORITHM);
    }
    for (const { name, value } of target.customHeaders ?? []) headers.set(name, value);
    return headers;
  }

  /** A short cause without request details: fetch errors carry the useful part in `cause`. */
  private reason(error: unknown): string {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'TimeoutError') return `timeout after ${this.timeoutMs} ms`;
    if (name === 'AbortError') return 'aborted';
    const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
    if (typeof cause?.code === 'string') return cause.code;
    if (typeof cause?.message === 'string') return cause.message;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The retry decision after failed attempt number `attempt` (1 for the first): the wait in ms
 * before the next attempt, or null when that was the last one the webhook's `retries` allow.
 */
export function retryAfterFailure(retries: RetriesConfig | null | undefined, attempt: number): number | null {
  const schedule = resolveRetries(retries);
  return attempt >= schedule.attempts ? null : retryDelayMs(schedule, attempt);
}
