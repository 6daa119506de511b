import { webhookWants, type WebhookConfig } from '@switchboard/protocol';
import type { EventBus, PublishedEvent } from '../../events/event-bus.js';
import type { WriteBatch } from '../store/write-batch.js';
import type { WebhookDispatcher } from './dispatcher.js';
import type { DeliveryRow, WebhookOutbox } from './outbox.js';
import type { EventLogWriter } from '../../webhooks/ports.js';

export interface WebhookFanoutDeps {
  readonly bus: EventBus;
  readonly outbox: Pick<WebhookOutbox, 'enqueue'>;
  readonly dispatcher: Pick<WebhookDispatcher, 'enqueued'>;
  /** The session's current `config.webhooks`, read per event so edits apply to the next event. */
  readonly webhooksOf: (session: string) => readonly WebhookConfig[];
  readonly globalHook: WebhookConfig | null;
  /** Group commit with the other writes of the turn; without it each event is its own transaction. */
  readonly writes?: Pick<WriteBatch, 'add' | 'onSettled'>;
  /** The catch-up log: an event with deliveries is logged in their transaction, any other on its own. */
  readonly eventLog?: EventLogWriter;
}

/**
 * Bus subscriber that turns each event into outbox rows for the webhooks that want it. It runs
 * inside `publish`, so in local mode the rows are in SQLite before the answer to the call that
 * caused the event goes out (with `writes`, at the end of that turn); a failing write is
 * reported (the bus's or the batch's error handler), never silent. The rows go to the dispatcher
 * once committed, never before: a row rolled back does not exist, and its id will be reused.
 * It also logs every event for catching up (`eventLog`): one with deliveries in their transaction,
 * so the log and the outbox agree whatever crashes.
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
    const targets = hooks.filter((hook) => webhookWants(hook.events, name));
    if (globalHook && webhookWants(globalHook.events, name)) targets.push(globalHook);
    if (targets.length === 0) return eventLog?.append(event);
    const logged = eventLog && (() => eventLog.appendWithDeliveries(event));
    if (this.deps.writes) {
      this.deps.writes.add(() => {
        for (const row of this.deps.outbox.enqueue(event, targets, logged)) this.written.push(row);
      });
    } else {
      this.deps.dispatcher.enqueued(this.deps.outbox.enqueue(event, targets, logged));
    }
  }
}
