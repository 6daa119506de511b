import { webhookWants, type WebhookConfig } from '@switchboard/protocol';
import { webhookTargets } from '../../webhooks/webhook-targets.js';
import type { EventBus, PublishedEvent } from '../../events/event-bus.js';
import type { WriteBatch } from '../store/write-batch.js';
import type { WebhookDispatcher } from './dispatcher.js';
import type { DeliveryRow, WebhookOutbox } from './outbox.js';
import type { EventLogWriter } from '../../webhooks/ports.js';

export interface WebhookFanoutDeps {
  readonly bus: EventBus;
  readonly outbox: Pick<WebhookOutbox, 'enqueue' | 'rolledBack'>;
  readonly dispatcher: Pick<WebhookDispatcher, 'enqueued'>;
  /** The session's current `config.webhooks`, read per event so edits apply to the next event. */
  readonly webhooksOf: (session: string) => readonly WebhookConfig[];
  readonly globalHook: WebhookConfig | null;
  /** Group commit with the other writes of the turn; without it each event is its own transaction. */
  readonly writes?: Pick<WriteBatch, 'add' | 'onSettled'>;
  /** The catch-up log of the events no webhook takes (the outbox logs the others: they are its queue). */
  readonly eventLog?: EventLogWriter;
}

/**
 * Bus subscriber that queues each event for the webhooks that want it (the session's webhooks
 * as configured now, and the global hook): one row in the outbox's event log, however many they
 * are. It runs inside `publish`, so in local mode the row is in SQLite before the answer to the
 * call that caused the event goes out (with `writes`, at the end of that turn); a failing write
 * is reported (the bus's or the batch's error handler), never silent. The rows go to the
 * dispatcher once committed, never before: a row rolled back was never queued. An event no
 * webhook takes goes to the catch-up log (`eventLog`) on its own.
 */
export class WebhookFanout {
  private unsubscribe: (() => void) | undefined;
  /** Rows written in the batch being flushed, for the dispatcher once it commits. */
  private written: DeliveryRow[] = [];

  constructor(private readonly deps: WebhookFanoutDeps) {
    deps.writes?.onSettled((committed) => {
      const rows = this.written;
      if (rows.length === 0) return;
      this.written = [];
      if (committed) this.deps.dispatcher.enqueued(rows);
      else this.deps.outbox.rolledBack();
    });
  }

  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private onEvent(event: PublishedEvent): void {
    const { session, event: name } = event.envelope;
    const { globalHook } = this.deps;
    const hooks = this.deps.webhooksOf(session);
    const { eventLog } = this.deps;
    // Most events of most sessions have no webhook: skip the allocations on that path.
    if (hooks.length === 0 && !globalHook) return eventLog?.append(event);
    const targets = webhookTargets(hooks, globalHook).filter((target) => webhookWants(target.config.events, name));
    if (targets.length === 0) return eventLog?.append(event);
    if (this.deps.writes) {
      this.deps.writes.add(() => {
        for (const row of this.deps.outbox.enqueue(event, targets)) this.written.push(row);
      });
    } else {
      this.deps.dispatcher.enqueued(this.deps.outbox.enqueue(event, targets));
    }
  }
}
