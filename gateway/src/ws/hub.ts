import { type EventName, websocketWants } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { OpenPerKey } from '../auth/open-per-key.js';
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
  /** Connections one key may have open at once; one more is closed with 1013 (each may buffer `maxBufferedBytes`). */
  readonly maxConnectionsPerKey?: number;
  /** Told of each client dropped, for metrics. */
  readonly onDrop?: (reason: 'slow' | 'heartbeat') => void;
  /** Told of each event sent to a client, `lagMs` after the event was made, for metrics. */
  readonly onSent?: (session: string, lagMs: number) => void;
}

/** Connections one key may have open at once, per gateway, unless configured otherwise. */
export const DEFAULT_WS_CONNECTIONS_PER_KEY = 10;

/** The close code of a connection beyond its key's limit: 1013, Try Again Later (RFC 6455 registry), once one of the others has closed. */
export const WS_TOO_MANY_CONNECTIONS = 1013;

interface Client {
  readonly socket: WebSocket;
  readonly subscription: WsSubscription;
  /** The key it was opened with (its id), whose connections are counted. */
  readonly key: string;
  alive: boolean;
}

/** Fans events out to `/ws` clients, each with its own session and event filter (spec 6.1). */
export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly perKey = new OpenPerKey();
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

  /**
   * Adds the connection of the key `key` (its id); false, and the connection closed with
   * WS_TOO_MANY_CONNECTIONS and the reason, when the key has as many open as it may.
   */
  add(socket: WebSocket, subscription: WsSubscription, key: string): boolean {
    const limit = this.options.maxConnectionsPerKey ?? DEFAULT_WS_CONNECTIONS_PER_KEY;
    const open = this.perKey.of(key);
    if (open >= limit) {
      socket.close(
        WS_TOO_MANY_CONNECTIONS,
        `this key has ${open} /ws connections open, the most one key may have (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY)`,
      );
      return false;
    }
    const client: Client = { socket, subscription, key, alive: true };
    this.clients.add(client);
    this.perKey.open(key);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('close', () => this.remove(client));
    socket.on('error', () => this.remove(client));
    return true;
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.socket.close(1001, 'server shutting down');
    this.clients.clear();
    this.perKey.clear();
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
      this.options.onSent?.(envelope.session, Date.now() - envelope.timestamp);
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
    this.remove(client);
    client.socket.terminate();
    this.options.onDrop?.(reason);
  }

  /** Forgets a client once, whichever of close, error and drop comes first. */
  private remove(client: Client): void {
    if (this.clients.delete(client)) this.perKey.close(client.key);
  }
}

function wants(subscription: WsSubscription, session: string, event: EventName): boolean {
  return (subscription.session === '*' || subscription.session === session) && websocketWants(subscription.events, event);
}
