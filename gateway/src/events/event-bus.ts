import type { EventEnvelope } from '@switchboard/protocol';

/**
 * The event bus port: engines publish finished envelopes, fan-outs (webhooks, /ws, later
 * metrics and history) subscribe. Local mode delivers in process; cluster mode over NATS.
 */
export interface EventBus {
  publish(event: PublishedEvent): void;
  subscribe(handler: EventHandler): () => void;
}

/** An envelope with its JSON serialized once, so every consumer sends the same bytes. */
export interface PublishedEvent {
  readonly envelope: EventEnvelope;
  readonly json: string;
}

export type EventHandler = (event: PublishedEvent) => void;

/**
 * Local mode: handlers run synchronously in publish order, so a webhook delivery is written
 * to the outbox before the engine call that caused the event returns. A failing handler is
 * reported and does not stop the others.
 */
export class InProcessEventBus implements EventBus {
  private readonly handlers = new Set<EventHandler>();

  constructor(private readonly onHandlerError: (error: unknown) => void) {}

  publish(event: PublishedEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.onHandlerError(error);
      }
    }
  }

  subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
}
