import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { EventEnvelope, EventName, WebhookConfig } from '@switchboard/protocol';
import { closedPort, type ClosedPort } from '@switchboard/testkit';
import { afterEach } from 'vitest';
import { pino, type Logger } from 'pino';
import { monotonicFactory } from 'ulid';
import { InProcessEventBus, type PublishedEvent } from '../../src/events/event-bus.js';
import { openDatabase } from '../../src/local/store/database.js';
import { WriteBatch } from '../../src/local/store/write-batch.js';
import { webhookTargets } from '../../src/webhooks/webhook-targets.js';
import type { DeliveryRow } from '../../src/local/webhooks/outbox.js';
import {
  WebhookDispatcher,
  type WebhookDispatcherOptions,
  WebhookFanout,
  WebhookOutbox,
  webhookOutboxSchema,
} from '../../src/local/webhooks/index.js';

/** One request as the receiver read it: raw body bytes, so HMAC checks see what was sent. */
export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly at: number;
}

/** Decides the answer's status; may wait to play a slow receiver. */
export type Responder = (request: ReceivedRequest, index: number) => number | Promise<number>;

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedRequest[];
  /** Bodies of the requests answered 2xx, parsed. */
  readonly accepted: EventEnvelope[];
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1; port 0 picks a free one. Given a held `ClosedPort`, it
 * releases it and listens there: the receiver that comes back after an outage.
 */
export async function startReceiver(respond: Responder = () => 200, at: number | ClosedPort = 0): Promise<Receiver> {
  if (typeof at !== 'number') await at.release();
  const port = typeof at === 'number' ? at : at.port;
  const received: ReceivedRequest[] = [];
  const accepted: EventEnvelope[] = [];
  const server = createServer((req, res) => {
    // A client that gave up (timeout) or a closed server must not count as an accepted delivery.
    let abandoned = false;
    res.on('close', () => (abandoned = !res.writableFinished));
    void readBody(req).then(async (body) => {
      const request = { headers: req.headers, body, at: Date.now() };
      received.push(request);
      const status = await respond(request, received.length - 1);
      if (abandoned) return;
      if (status >= 200 && status < 300) accepted.push(JSON.parse(body.toString('utf8')) as EventEnvelope);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${bound}/hook`, port: bound, received, accepted, close: () => closeServer(server) };
}

/**
 * A webhook to a loopback port held closed (see `closedPort`), given up after two quick attempts: its
 * deliveries die. A receiver started on `port` later gets what is replayed.
 */
export async function unreachableWebhook(
  events: WebhookConfig['events'],
  extra: Partial<WebhookConfig> = {},
): Promise<{ port: ClosedPort; hook: WebhookConfig }> {
  const port = await closedPort();
  const hook: WebhookConfig = {
    url: `http://127.0.0.1:${port.port}/hook`,
    events,
    retries: { policy: 'constant', delaySeconds: 0.02, attempts: 2 },
    ...extra,
  };
  return { port, hook };
}

/**
 * Answers that refuse (503) the first attempt of each event whose `seq` `refuse` picks, and accept
 * everything else, retries included: order must survive a retry at the head of a queue.
 * `refused` holds the ids of the events refused once.
 */
export function refusingFirstAttempts(refuse: (seq: number) => boolean): { respond: Responder; refused: ReadonlySet<string> } {
  const refused = new Set<string>();
  return {
    refused,
    respond: ({ body }) => {
      const { id, payload } = JSON.parse(body.toString('utf8')) as { id: string; payload: { seq: number } };
      if (!refuse(payload.seq) || refused.has(id)) return 200;
      refused.add(id);
      return 503;
    },
  };
}

/** Answers 200 after `delayMs`, keeping the most requests it ever had in hand at once. */
export function countingInFlight(delayMs: number): { respond: Responder; peak: () => number } {
  let inFlight = 0;
  let peak = 0;
  return {
    peak: () => peak,
    respond: async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      inFlight--;
      return 200;
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function closeServer(server: Server): Promise<void> {
  // Drops kept-alive and hanging connections too, so close does not wait for a slow handler.
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Ids sort in the order events are made, as the engine host's do. */
const ulid = monotonicFactory();

/** A published event as the bus hands it to subscribers, `seq` in its payload to check order. */
export function makeEvent(session: string, seq: number, event: EventName = 'message'): PublishedEvent {
  const envelope: EventEnvelope = {
    id: `evt_${ulid().toLowerCase()}`,
    timestamp: Date.now(),
    event,
    session,
    metadata: { tenant: 'ünïcode ✓' },
    environment: { tier: 'local', version: 'test', engine: 'SANDBOX', platform: 'linux/x64', worker: { id: 'gateway-0' } },
    engine: 'SANDBOX',
    payload: { seq },
  };
  return { envelope, json: JSON.stringify(envelope) };
}

/** Log lines collected as text, to check what a warning says and what it must not say. */
function captureLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }), lines };
}

/** Dispatcher options a fixture passes on; `writeBatch` gives it the group commit local mode has. */
export type FixtureOptions = Partial<Pick<WebhookDispatcherOptions, 'timeoutMs' | 'concurrency' | 'clearEveryMs' | 'memory' | 'circuit'>> & {
  readonly writeBatch?: boolean;
};

/** A real SQLite file in a fresh temp dir, an outbox and a dispatcher on it; `reopen` simulates a restart. */
export class OutboxFixture {
  readonly dir = mkdtempSync(join(tmpdir(), 'switchboard-webhooks-'));
  readonly logCapture = captureLog();
  db!: DatabaseSync;
  outbox!: WebhookOutbox;
  dispatcher!: WebhookDispatcher;
  /** With `writeBatch`: the group commit, as local mode wires it to the fan-out and the dispatcher. */
  writes: WriteBatch | undefined;
  /** What the write batch reported failing, as the number of writes lost each time. */
  readonly failedBatches: number[] = [];
  /**
   * The sessions' webhooks as configured now, which the queues send to: `enqueue` adds the ones
   * it is given, a test may set its own (`useWebhooks`).
   */
  readonly webhooks = new Map<string, WebhookConfig[]>();
  private webhooksOf: (session: string) => readonly WebhookConfig[] = (session) => this.webhooks.get(session) ?? [];
  private globalHook: WebhookConfig | null = null;

  constructor(private readonly options: FixtureOptions = {}) {
    this.open();
  }

  open(): void {
    const { writeBatch, ...dispatcherOptions } = this.options;
    this.db = openDatabase(this.dir, [webhookOutboxSchema]);
    this.outbox = new WebhookOutbox(this.db, {
      targetOf: (session, targetId) => webhookTargets(this.webhooksOf(session), this.globalHook).find(({ id }) => id === targetId)?.config ?? null,
    });
    this.writes = writeBatch ? new WriteBatch(this.db, (_, writes) => this.failedBatches.push(writes)) : undefined;
    this.dispatcher = new WebhookDispatcher({
      outbox: this.outbox,
      log: this.logCapture.log,
      ...dispatcherOptions,
      ...(this.writes ? { writes: this.writes } : {}),
    });
  }

  /** The sessions' webhooks (and the global hook) come from `webhooksOf` from now on. */
  useWebhooks(webhooksOf: (session: string) => readonly WebhookConfig[], globalHook: WebhookConfig | null = null): void {
    this.webhooksOf = webhooksOf;
    this.globalHook = globalHook;
  }

  /**
   * Queues `event` for `targets`, as the fan-out would: each one becomes (stays) a webhook of the
   * event's session, and the event is logged once for all of them. Returns the rows written.
   */
  enqueue(event: PublishedEvent, targets: readonly WebhookConfig[]): DeliveryRow[] {
    const { session } = event.envelope;
    const hooks = this.webhooks.get(session) ?? [];
    // A webhook is the same when its config is: tests write the same config as new objects.
    const same = (a: WebhookConfig, b: WebhookConfig) => a === b || JSON.stringify(a) === JSON.stringify(b);
    for (const target of targets) if (!hooks.some((hook) => same(hook, target))) hooks.push(target);
    this.webhooks.set(session, hooks);
    const queued = webhookTargets(hooks, null).filter(({ config }) => targets.some((target) => same(config, target)));
    return this.outbox.enqueue(event, queued);
  }

  /** Every pending row, queue by queue (each in its order), as the dispatcher would read them. */
  pendingRows(): DeliveryRow[] {
    const now = Number.MAX_SAFE_INTEGER;
    return this.outbox.takeDue(now, 1000).flatMap((key) => this.outbox.headOf(key, 1000) ?? []);
  }

  /**
   * A bus (whose handler errors fail the test) and a started fan-out writing to this outbox,
   * through the write batch when there is one, as local mode wires them. The dispatcher is not started.
   */
  fanout(webhooksOf: (session: string) => WebhookConfig[]): { bus: InProcessEventBus; fanout: WebhookFanout } {
    this.useWebhooks(webhooksOf);
    const bus = new InProcessEventBus((error) => {
      throw error;
    });
    const fanout = new WebhookFanout({
      bus,
      outbox: this.outbox,
      dispatcher: this.dispatcher,
      webhooksOf,
      globalHook: null,
      ...(this.writes ? { writes: this.writes } : {}),
    });
    fanout.start();
    return { bus, fanout };
  }

  async close(): Promise<void> {
    await this.dispatcher.stop();
    if (this.db.isOpen) this.db.close();
  }

  async reopen(): Promise<void> {
    await this.close();
    this.open();
  }

  async dispose(): Promise<void> {
    await this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Factories whose fixtures and receivers are closed after each test, even a failing one. */
export function closedAfterEach() {
  const fixtures: OutboxFixture[] = [];
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await Promise.all(fixtures.splice(0).map((f) => f.dispose()));
  });
  return {
    fixture: (options?: ConstructorParameters<typeof OutboxFixture>[0]): OutboxFixture => {
      const f = new OutboxFixture(options);
      fixtures.push(f);
      return f;
    },
    receiver: async (respond?: Responder, port?: number | ClosedPort): Promise<Receiver> => {
      const r = await startReceiver(respond, port);
      receivers.push(r);
      return r;
    },
  };
}
