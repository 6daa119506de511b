import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireJson } from './api-client.js';

export interface ReceivedHook {
  /** The request target: path and query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: WireJson;
  /** Whether X-Webhook-Hmac matched our own sha512 HMAC of the raw body (null: no key to check). */
  readonly hmacValid: boolean | null;
  /** When it arrived (Date.now()). */
  readonly at: number;
}

/** An answer with more than a status: headers (a Retry-After), or held back before it is sent. */
export interface ReceiverAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Waits this long before answering (a receiver that hangs). */
  readonly delayMs?: number;
}

/**
 * A real webhook receiver on a loopback port (or the address given). It checks the HMAC the way a user's receiver
 * would: recompute over the raw body and compare.
 */
export class WebhookReceiver {
  /** Requests answered with a 2xx. */
  readonly received: ReceivedHook[] = [];
  /** Every request, whatever its answer, in arrival order. */
  readonly requests: ReceivedHook[] = [];
  private server: Server | null = null;
  private port = 0;
  private host = '127.0.0.1';
  /** Decides each answer: its status (200 by default), or a `ReceiverAnswer`. */
  respond: (hook: ReceivedHook) => number | ReceiverAnswer = () => 200;

  constructor(private readonly hmacKey: string | null = null) {}

  get url(): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}/hook`;
  }

  /** Listens on `host` (default 127.0.0.1; a real node's pods reach the host at its bridge address). */
  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    this.host = host;
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const signature = request.headers['x-webhook-hmac'];
        const hook: ReceivedHook = {
          path: request.url ?? '',
          headers: request.headers,
          raw,
          // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- WireJson, see api-client.ts
          body: JSON.parse(raw),
          hmacValid: this.hmacKey === null ? null : signature === createHmac('sha512', this.hmacKey).update(raw).digest('hex'),
          at: Date.now(),
        };
        this.requests.push(hook);
        const decided = this.respond(hook);
        const answer = typeof decided === 'number' ? { status: decided } : decided;
        const send = () => {
          // A sender that gave up meanwhile (its timeout) took no answer.
          if (response.destroyed) return;
          if (answer.status >= 200 && answer.status < 300) this.received.push(hook);
          response.writeHead(answer.status, answer.headers).end();
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
        else send();
      });
    });
    // A port taken must fail the start, not throw later from the server's 'error' event.
    await new Promise<void>((resolve, reject) => this.server!.once('error', reject).listen(port, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  events(name: string): WireJson[] {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- WireJson, see api-client.ts
    return this.received.filter((hook) => (hook.body as { event?: unknown }).event === name).map((hook) => hook.body);
  }

  /** The envelopes of event `name` from `session` whose payload matches, in the order they came. */
  sessionEvents(session: string, name: string, match: (payload: WireJson) => boolean = () => true): WireJson[] {
    return this.events(name).filter((body: { session?: unknown; payload?: unknown }) => body.session === session && match(body.payload));
  }
}
