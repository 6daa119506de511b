import type { DeadDelivery, ReplayResult, WebhookConfig } from '@switchboard/protocol';
import type { WebhookDispatcher } from './dispatcher.js';
import type { WebhookOutbox } from './outbox.js';
import type { DeadDeliveries } from '../../webhooks/ports.js';
import { planReplay } from '../../webhooks/replay-plan.js';

export interface OutboxDeadDeliveriesDeps {
  readonly outbox: WebhookOutbox;
  readonly dispatcher: Pick<WebhookDispatcher, 'kick'>;
  readonly webhooksOf: (session: string) => readonly WebhookConfig[];
  readonly globalHook: WebhookConfig | null;
}

/**
 * Local mode's dead deliveries: the outbox rows in state `dead`. A replay turns them back into
 * pending rows, so they are as durable as any delivery. Being the oldest rows of their queue,
 * replayed rows go out before the queue's pending ones.
 */
export class OutboxDeadDeliveries implements DeadDeliveries {
  constructor(private readonly deps: OutboxDeadDeliveriesDeps) {}

  async list(session: string, page: { limit: number; offset: number }): Promise<DeadDelivery[]> {
    return this.deps.outbox.deadFor(session, page);
  }

  async replay(session: string, ids: readonly number[] | undefined): Promise<ReplayResult> {
    const { outbox, webhooksOf, globalHook } = this.deps;
    // Read and revive in one turn of the event loop: no delivery outcome is recorded in between.
    const plan = planReplay(session, outbox.deadByIds(session, ids), ids, webhooksOf(session), globalHook);
    outbox.revive(plan.replay.map(({ dead, target }) => ({ id: dead.id, session, target })));
    if (plan.replay.length > 0) this.deps.dispatcher.kick();
    return { replayed: plan.replay.map(({ dead }) => dead.id), skipped: plan.skipped };
  }
}
