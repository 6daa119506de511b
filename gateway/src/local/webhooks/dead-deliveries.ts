import type { DeadDelivery, ReplayResult, WebhookConfig } from '@switchboard/protocol';
import type { WebhookDispatcher } from './dispatcher.js';
import type { WebhookOutbox } from './outbox.js';
import type { DeadDeliveries } from '../../webhooks/ports.js';
import { planReplay } from '../../webhooks/replay-plan.js';
import { webhookTargets } from '../../webhooks/webhook-targets.js';

export interface OutboxDeadDeliveriesDeps {
  readonly outbox: WebhookOutbox;
  readonly dispatcher: Pick<WebhookDispatcher, 'kick'>;
  readonly webhooksOf: (session: string) => readonly WebhookConfig[];
  readonly globalHook: WebhookConfig | null;
}

/**
 * Local mode's dead deliveries: the outbox entries in state `dead`. A replay turns them back into
 * pending entries, so they are as durable as any delivery. A queue's pending entries go before
 * the events after its cursor, so replayed deliveries go out before the queue's pending ones.
 */
export class OutboxDeadDeliveries implements DeadDeliveries {
  constructor(private readonly deps: OutboxDeadDeliveriesDeps) {}

  async list(session: string, page: { limit: number; offset: number }): Promise<DeadDelivery[]> {
    return this.deps.outbox.deadFor(session, page);
  }

  async replay(session: string, ids: readonly number[] | undefined): Promise<ReplayResult> {
    const { outbox, webhooksOf, globalHook } = this.deps;
    // Read and revive in one turn of the event loop: no delivery outcome is recorded in between.
    const hooks = webhooksOf(session);
    const targets = webhookTargets(hooks, globalHook);
    const plan = planReplay(session, outbox.deadByIds(session, ids), ids, hooks, globalHook);
    // Into the queue of the webhook the plan chose (the first of the session's with the url).
    outbox.revive(plan.replay.map(({ dead, target }) => ({ id: dead.id, session, target: targets.find(({ config }) => config === target)! })));
    if (plan.replay.length > 0) this.deps.dispatcher.kick();
    return { replayed: plan.replay.map(({ dead }) => dead.id), skipped: plan.skipped };
  }
}
