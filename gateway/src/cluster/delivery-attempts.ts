import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryFailureReason, ResourceWebhookConfig, WebhookConfig } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { PublishedEvent } from '../events/event-bus.js';
import type { DeliveryObserver } from '../webhooks/delivery-observer.js';
import type { DeliveryCounters } from '../webhooks/delivery-observer.js';
import { maxPauseMs, retryAfterFailure, type WebhookSender } from '../webhooks/http-delivery.js';
import { type DeliveryFailure, secretFailure } from '../webhooks/delivery-failure.js';
import { type EndpointCircuits, logCircuit } from '../webhooks/endpoint-circuit.js';
import { logUrl } from '../webhooks/log-url.js';
import type { WebhookStates } from '../webhooks/ports.js';
import type { Slots } from './slots.js';

/** What cluster mode's deliveries (queued and replayed) share within one replica. */
export interface AttemptContext {
  readonly sender: WebhookSender;
  /** HTTP requests in flight at once from this replica, over all webhooks. */
  readonly requests: Slots;
  /** This replica's view of failing endpoints: probed, not hammered, and paused when they ask. */
  readonly circuits: EndpointCircuits;
  readonly log: Logger;
  readonly observer: DeliveryObserver;
  readonly counters: DeliveryCounters;
  /** The webhook with its secrets read from their Secrets; rejects when one cannot be read. */
  readonly resolve: (target: ResourceWebhookConfig) => Promise<WebhookConfig>;
  /** Webhooks a 410 Gone disabled (shared by the replicas); without, a 410 only ends its delivery. */
  readonly states?: WebhookStates;
}

/** A 410 Gone: the webhook is disabled on every replica, and its next events go dead unsent. Never rejects. */
export async function disableGone(context: AttemptContext, session: string, url: string): Promise<void> {
  if (!context.states) return;
  try {
    await context.states.disable(session, url, Date.now());
    context.log.warn(
      { session, url: logUrl(url) },
      'webhook receiver answered 410 Gone: the webhook is disabled until enabled again (POST /api/{session}/webhooks/enable)',
    );
  } catch (error) {
    // Not kept: the next attempt gets the 410 again and tries again.
    context.log.error({ err: error, session, url: logUrl(url) }, 'webhook answered 410 Gone but could not be disabled');
  }
}

/** How a delivery ended when it did not end in a 2xx. */
export interface GivenUp {
  readonly attempts: number;
  readonly lastError: DeliveryFailureReason;
}

/**
 * Every attempt of one delivery, on the webhook's retry schedule, waiting in memory between
 * attempts (the caller keeps the message alive meanwhile). Resolves null once delivered, or how
 * it gave up after the last attempt; rejects only when `signal` aborts (a replica stopping).
 */
export async function deliverWithRetries(
  context: AttemptContext,
  target: ResourceWebhookConfig,
  event: PublishedEvent,
  signal: AbortSignal,
): Promise<GivenUp | null> {
  const { id: eventId, session, timestamp } = event.envelope;
  for (let attempt = 1; ; attempt++) {
    const { failure, startedAt } = await send(context, target, event, signal);
    signal.throwIfAborted();
    const change = context.circuits.record(target.url, failure, startedAt, Date.now(), maxPauseMs(target.retries));
    if (change) logCircuit(context.log, change, target.url);
    if (failure === null) {
      context.counters.succeeded++;
      context.observer.delivered(session, Date.now() - timestamp);
      return null;
    }
    const log = { session, eventId, url: logUrl(target.url), attempt, ...failure };
    const delayMs = retryAfterFailure(target.retries, attempt, failure);
    if (delayMs === null) {
      context.counters.dead++;
      context.observer.dead(session);
      context.log.warn({ ...log, attempts: attempt }, 'webhook delivery dead after its last attempt');
      return { attempts: attempt, lastError: failure.reason };
    }
    context.counters.retried++;
    context.observer.retried(session);
    context.log.debug({ ...log, retryInMs: delayMs }, 'webhook delivery failed; will retry');
    await sleep(delayMs, undefined, { signal });
  }
}

/**
 * One attempt: the webhook's secrets are read at each one, so a Secret created or fixed after a
 * failure is used by the next. One that cannot be read fails the attempt, with the reason. An
 * endpoint paused by its Retry-After, or whose circuit is open, is waited for, holding no slot.
 */
async function send(
  context: AttemptContext,
  target: ResourceWebhookConfig,
  event: PublishedEvent,
  signal: AbortSignal,
): Promise<{ failure: DeliveryFailure | null; startedAt: number }> {
  let hook: WebhookConfig;
  try {
    hook = await context.resolve(target);
  } catch (error) {
    const failure = secretFailure(error instanceof Error ? error.message : String(error));
    const { session, id: eventId } = event.envelope;
    context.log.warn({ session, eventId, url: logUrl(target.url), ...failure }, 'webhook secret unavailable: the delivery attempt fails');
    return { failure, startedAt: Date.now() };
  }
  for (;;) {
    // Asked with a slot in hand, right before the request: a queue that waited for a slot while
    // the circuit opened does not send past it. Paused or open: the slot goes back while it waits.
    const outcome = await context.requests.run(async () => {
      const startedAt = Date.now();
      const wait = context.circuits.admit(target.url, startedAt);
      return wait > 0 ? wait : { failure: await context.sender.send(hook, event.json, event.envelope.id, signal), startedAt };
    });
    if (typeof outcome !== 'number') return outcome;
    await sleep(outcome, undefined, { signal });
  }
}

/** Tells the server a message is still being worked on, well inside its ack wait, until stopped. */
export function keepAlive(working: () => void, ackWaitMs: number): () => void {
  const timer = setInterval(() => settle(working), Math.max(100, ackWaitMs / 3));
  return () => clearInterval(timer);
}

/** Ack, nak and progress reports go out on the connection; a closed one only means the server redelivers. */
export function settle(report: () => void): void {
  try {
    report();
  } catch {
    // The message stays un-acked on the server and comes back after the ack wait: at least once.
  }
}
