import type { EventEnvelope } from '@switchboard/protocol';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventBus } from '../events/event-bus.js';
import { type HoldReason, type SendQueueObserver, SendQueueMetrics } from '@switchboard/engine-pod';
import type { DeliveryObserver } from '../webhooks/delivery-observer.js';
import { ScrapeTimeCounter } from './scrape-time-counter.js';
import { SessionHealthMetrics, type SessionStatusRow } from './session-health-metrics.js';

/** Why a websocket client was dropped. */
export type WsDropReason = 'slow' | 'heartbeat';

export interface GatewayMetricsOptions {
  /** Process and Node.js metrics (CPU, memory, event loop lag, GC). */
  readonly defaultMetrics?: boolean;
}

/**
 * The gateway's Prometheus metrics (docs/operations.md lists them). Labels are the session and,
 * for events, the event name: both bounded by what the operator configures. Webhook urls are not
 * labels, as a url per session would multiply the series; the dead-delivery API names them.
 * Each gateway has a registry of its own, so several in one process (tests) do not collide.
 */
export class GatewayMetrics implements DeliveryObserver, SendQueueObserver {
  readonly registry = new Registry();

  // Counted at every event: kept as plain numbers until scraped (scrape-time-counter.ts).
  private readonly events: ScrapeTimeCounter<'session' | 'event'>;
  private readonly messagesIn: ScrapeTimeCounter<'session'>;
  private readonly messagesOut: ScrapeTimeCounter<'session'>;
  private readonly statusChanges: ScrapeTimeCounter<'session' | 'status'>;
  private readonly succeeded: Counter<'session'>;
  private readonly retriedTotal: Counter<'session'>;
  private readonly deadTotal: Counter<'session'>;
  private readonly latency: Histogram<'session'>;
  private readonly wsDropped: Counter<'reason'>;
  private readonly forgedEvents: Counter<'session' | 'reader'>;
  /** Paced sending's series, defined beside the queues (engine-pod's queue-metrics.ts): the engine pods serve the same. */
  private readonly sendQueue: SendQueueMetrics;
  /** Last event, status, reconnects, silences and event lag per session (session-health-metrics.ts). */
  private readonly health: SessionHealthMetrics;

  constructor(options: GatewayMetricsOptions = {}) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers });
    const eventCounter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
      new ScrapeTimeCounter<L>({ name, help, labelNames, registry: this.registry });
    this.events = eventCounter('switchboard_events_total', 'Events made by the sessions', ['session', 'event']);
    this.messagesIn = eventCounter('switchboard_messages_in_total', 'Messages received (message.any not from me)', ['session']);
    this.messagesOut = eventCounter('switchboard_messages_out_total', 'Messages sent, by the API or the phone (message.any from me)', ['session']);
    this.statusChanges = eventCounter('switchboard_session_status_changes_total', 'session.status events, by new status', ['session', 'status']);
    this.succeeded = counter('switchboard_webhook_deliveries_succeeded_total', 'Webhook deliveries answered 2xx', ['session']);
    this.retriedTotal = counter('switchboard_webhook_deliveries_retried_total', 'Failed webhook attempts followed by another attempt', ['session']);
    this.deadTotal = counter('switchboard_webhook_deliveries_dead_total', 'Webhook deliveries given up after their last attempt (kept as dead)', [
      'session',
    ]);
    this.latency = new Histogram({
      name: 'switchboard_webhook_delivery_latency_seconds',
      help: 'From the event (cluster mode) or its queueing (local mode) to the 2xx answer, retries included',
      labelNames: ['session'],
      // From a local receiver (ms) to a retry schedule's hour.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.wsDropped = counter('switchboard_ws_clients_dropped_total', 'Websocket clients dropped: too slow, or no pong', ['reason']);
    this.forgedEvents = counter(
      'switchboard_forged_events_dropped_total',
      "Events dropped (cluster mode) because their body names another session than their subject's, by the subject's session and the reader",
      ['session', 'reader'],
    );
    this.sendQueue = new SendQueueMetrics(this.registry);
    this.health = new SessionHealthMetrics(this.registry);
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts every event published on the bus; returns the unsubscribe function. */
  countEvents(bus: EventBus): () => void {
    return bus.subscribe(({ envelope }) => this.observeEvent(envelope));
  }

  observeEvent(envelope: EventEnvelope): void {
    const { session, event, payload } = envelope;
    this.events.inc(session, event);
    this.health.observeEvent(envelope);
    if (event === 'message.any') (payload.fromMe === true ? this.messagesOut : this.messagesIn).inc(session);
    else if (event === 'session.status' && typeof payload.status === 'string') {
      this.statusChanges.inc(session, payload.status);
    }
  }

  /**
   * Drops every series of a deleted session, so that sessions coming and going do not grow the
   * scrape for ever. One made again under the same name counts from zero (a counter reset, which
   * Prometheus's rate and increase expect).
   */
  forgetSession(session: string): void {
    for (const counter of [this.events, this.messagesIn, this.messagesOut, this.statusChanges]) counter.removeWhere('session', session);
    for (const metric of [this.succeeded, this.retriedTotal, this.deadTotal, this.latency]) metric.remove({ session });
    this.sendQueue.forgetSession(session);
    this.health.forgetSession(session);
  }

  delivered(session: string, latencyMs: number): void {
    this.succeeded.inc({ session });
    this.latency.observe({ session }, Math.max(0, latencyMs) / 1000);
    // The same span is the event's lag: from its making (cluster mode: the envelope's timestamp;
    // local mode: its queueing, in the process that made it, at once) to the 2xx answer.
    this.health.delivered(session, 'webhook', latencyMs);
  }

  /** Where `switchboard_session_status` reads the sessions and their status at each scrape. */
  readSessionStatuses(list: () => Promise<readonly SessionStatusRow[]>): void {
    this.health.readStatuses(list);
  }

  /** An event sent to a `/ws` client, `lagMs` after the event was made. */
  sentToWs(session: string, lagMs: number): void {
    this.health.delivered(session, 'ws', lagMs);
  }

  retried(session: string): void {
    this.retriedTotal.inc({ session });
  }

  dead(session: string): void {
    this.deadTotal.inc({ session });
  }

  /** `session` is the one the subject names: NATS permissions tie it to the pod that published. */
  forgedEventDropped(session: string, reader: string): void {
    this.forgedEvents.inc({ session, reader });
  }

  droppedWsClient(reason: WsDropReason): void {
    this.wsDropped.inc({ reason });
  }

  /**
   * Cluster mode: `switchboard_nats_stream_replicas_current` and `_wanted` by stream, from one
   * reading per scrape (`read` caches it: both gauges ask). A stream gone since the last scrape
   * drops out.
   */
  streamReplicas(read: () => Promise<readonly { stream: string; current: number; wanted: number }[]>): void {
    const gauge = (name: string, help: string, pick: (stream: { current: number; wanted: number }) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['stream'],
        registers: [this.registry],
        async collect() {
          const streams = await read();
          this.reset();
          for (const stream of streams) this.set({ stream: stream.stream }, pick(stream));
        },
      });
    gauge(
      'switchboard_nats_stream_replicas_current',
      'Copies of the JetStream stream that are current: its leader and each caught-up follower',
      (s) => s.current,
    );
    gauge('switchboard_nats_stream_replicas_wanted', 'Copies of the JetStream stream its configuration asks for', (s) => s.wanted);
  }

  /** Paced sending (engine-pod's sending/send-pacer.ts `SendQueueObserver`). */
  held(session: string, reason: HoldReason): void {
    this.sendQueue.held(session, reason);
  }

  waited(session: string, waitedMs: number): void {
    this.sendQueue.waited(session, waitedMs);
  }

  /** `switchboard_send_queue_depth{session}`, read at scrape time from the queues' store. */
  sendQueueDepths(read: () => ReadonlyMap<string, number>): void {
    this.sendQueue.depths(read);
  }

  /** A gauge read at scrape time, for values something else already keeps. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
