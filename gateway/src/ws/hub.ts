import { type EventName, websocketWants } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { EventBus, PublishedEvent } from '../events/event-bus.js';

export interface WsSubscription {
  /** A session name, or `*` for all sessions. */
  readonly session: string;
  readonly events: readonly string[];
}

export interface WsHubOptions {
  readonly bus: EventBus;
  readonly log: Logger;
  /** A client with more than this many bytes unsent is dropped: memory stays bounded. */
  readonly maxBufferedBytes?: number;
  /** Ping period; a client that has not answered the previous ping by then is dropped. */
  readonly heartbeatMs?: number;
  /** Told of each client dropped, for metrics. */
  readonly onDrop?: (reason: 'slow' | 'heartbeat') => void;
}

interface Client {
  readonly socket: WebSocket;
  readonly subscription: WsSubscription;
  alive: boolean;
}

/** Fans events out to `/ws` clients, each with its own session and event filter (spec 6.1). */
export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: WsHubOptions) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.unsubscribe = options.bus.subscribe((event) => this.broadcast(event));
    this.heartbeat = setInterval(() => this.ping(), options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  add(socket: WebSocket, subscription: WsSubscription): void {
    const client: Client = { socket, subscription, alive: true };
    this.clients.add(client);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('close', () => this.clients.delete(client));
    socket.on('error', () => this.clients.delete(client));
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.socket.close(1001, 'server shutting down');
    this.clients.clear();
  }

  private broadcast(event: PublishedEvent): void {
    const { envelope } = event;
    for (const client of this.clients) {
      if (!wants(client.subscription, envelope.session, envelope.event)) continue;
      if (client.socket.bufferedAmount > this.maxBufferedBytes) {
        this.options.log.warn({ session: client.subscription.session, buffered: client.socket.bufferedAmount }, 'websocket client too slow: dropped');
        this.drop(client, 'slow');
        continue;
      }
      // `json` is serialized on first use: only when some client wants the event.
      client.socket.send(event.json);
    }
  }

  private ping(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        this.options.log.info({ session: client.subscription.session }, 'websocket client missed its pong: dropped');
        this.drop(client, 'heartbeat');
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }

  /** Cuts the connection without a close handshake: a client that is behind would not read it. */
  private drop(client: Client, reason: 'slow' | 'heartbeat'): void {
    this.clients.delete(client);
    client.socket.terminate();
    this.options.onDrop?.(reason);
  }
}

function wants(subscription: WsSubscription, session: string, event: EventName): boolean {
  return (subscription.session === '*' || subscription.session === session) && websocketWants(subscription.events, event);
}
