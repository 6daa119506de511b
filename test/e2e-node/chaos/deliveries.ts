// Every delivery the chaos tier sees, counted by event id: a webhook receiver on the host (the
// release's pods reach the host at the bridge address) and /ws clients through a port-forward.
// Only counts and first-seen times are kept, never the bodies: a soak sends hundreds of thousands.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one channel (webhook or /ws) saw. */
export class Seen {
  /** event id -> how often it came. */
  readonly byEvent = new Map<string, number>();
  /** session -> deliveries beyond the first of its event ids (where duplicates come from). */
  readonly duplicatesBySession = new Map<string, number>();
  /** A sent message's id -> the event ids of its message.any envelopes (one, unless something re-made the event). */
  readonly messageEvents = new Map<string, Set<string>>();
  /** When a sent message's message.any first came (ms). */
  readonly messageAt = new Map<string, number>();
  /** session -> how many session.status SCAN_QR_CODE it was told (a new pairing asked of the phone). */
  readonly qrs = new Map<string, number>();
  /** session -> its last session.status. */
  readonly status = new Map<string, string>();
  /** session -> when it was last told WORKING. */
  readonly workingAt = new Map<string, number>();
  lastAt = 0;

  record(envelope: { id?: unknown; event?: unknown; session?: unknown; payload?: { id?: unknown; status?: unknown } }): void {
    const id = String(envelope.id);
    const seen = this.byEvent.get(id) ?? 0;
    this.byEvent.set(id, seen + 1);
    this.lastAt = Date.now();
    const session = String(envelope.session);
    if (seen > 0) this.duplicatesBySession.set(session, (this.duplicatesBySession.get(session) ?? 0) + 1);
    if (envelope.event === 'message.any' && typeof envelope.payload?.id === 'string') {
      const message = envelope.payload.id;
      let events = this.messageEvents.get(message);
      if (!events) this.messageEvents.set(message, (events = new Set()));
      events.add(id);
      if (!this.messageAt.has(message)) this.messageAt.set(message, this.lastAt);
    }
    if (envelope.event === 'session.status' && typeof envelope.payload?.status === 'string') {
      this.status.set(session, envelope.payload.status);
      if (envelope.payload.status === 'WORKING') this.workingAt.set(session, this.lastAt);
      if (envelope.payload.status === 'SCAN_QR_CODE') this.qrs.set(session, (this.qrs.get(session) ?? 0) + 1);
    }
  }

  /** Deliveries beyond the first of one event id: allowed (at-least-once), counted. */
  duplicates(): number {
    let extra = 0;
    for (const count of this.byEvent.values()) extra += count - 1;
    return extra;
  }

  /** Messages that arrived under more than one event id: a duplicate a receiver could not drop. Must be 0. */
  reissued(): string[] {
    return [...this.messageEvents].filter(([, events]) => events.size > 1).map(([message]) => message);
  }

  totalQrs(): number {
    let n = 0;
    for (const count of this.qrs.values()) n += count;
    return n;
  }

  deliveries(): number {
    let n = 0;
    for (const count of this.byEvent.values()) n += count;
    return n;
  }
}

/** The webhook receiver: answers 200 to everything and records it. */
export class HookCounter {
  readonly seen = new Seen();
  private server: Server | null = null;
  private address = '';

  get url(): string {
    return `http://${this.address}/hook`;
  }

  async start(host: string): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          this.seen.record(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          response.writeHead(200).end();
        } catch {
          response.writeHead(400).end();
        }
      });
    });
    // Hundreds of deliveries a second from two gateway replicas: keep their connections.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((done, fail) => this.server!.once('error', fail).listen(0, host, done));
    this.address = `${host}:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
}
