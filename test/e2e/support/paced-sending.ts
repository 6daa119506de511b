// What the cluster-mode paced-sending files share (paced-sending.test.ts for the Node engine
// pods, paced-sending-gows.test.ts for the Go one): a send as a client of the extension makes it,
// the queue as the API lists it, and the check that each queued send reached the webhook once,
// in the order it was queued.
import { waitFor, type WebhookReceiver } from '@switchboard/testkit';
import { expect } from 'vitest';
import { ADMIN_KEY, type GatewayProcess } from './cluster-environment.js';

export interface PacedSending {
  /** A sendText with the wait header (`x-switchboard-wait`). */
  send(session: string, body: Record<string, unknown>, wait: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }>;
  /** `GET /api/{session}/queue`. */
  queue(session: string): Promise<{ total: number; items: Array<{ id: string; state: string }> }>;
  /** Queues `count` texts with ids `<prefix>0001`... to a session made to hold or space them (201 or 202 each). */
  queueTexts(session: string, prefix: string, count: number): Promise<string[]>;
  /**
   * Waits until the first of the sends queued to a `HOLDING` session has gone and the rest wait,
   * none in flight. A pod killed in the middle of a send leaves its fate unknown, which recovery
   * settles from the history (docs/api.md, "Paced sending"): these tests move or kill the pod with
   * sends waiting, not with one on the wire.
   */
  held(session: string, count: number): Promise<void>;
  /**
   * Lifts the hold of a session made by `HOLDING` (`PUT` of its config, the webhook kept): the
   * queue goes out a second apart, which keeps the order observable.
   */
  release(session: string, webhooks: unknown[]): Promise<void>;
  /** Once the queue is empty: every send reached the webhook once, in the order it was queued. */
  eachOnceInOrder(session: string, ids: string[]): Promise<void>;
}

/**
 * A session's `sending` that holds its queue: one send a minute, so the first goes out and the
 * rest wait until `release`. A test that needs sends still queued when it kills or moves the pod
 * cannot rely on a short delay: on a loaded machine the queue drained while the test was still
 * queueing (a CI run queued 6 sends spaced 1 s and found the queue empty).
 */
export const HOLDING = { perMinute: 1 } as const;

/** The helpers for a gateway whose sessions send to `chat` and deliver `message.any` to `receiver`. */
export function pacedSending(gw: GatewayProcess, receiver: WebhookReceiver, chat: string): PacedSending {
  const send: PacedSending['send'] = async (session, body, wait) => {
    const response = await fetch(`${gw.url}/api/sendText`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'x-switchboard-wait': wait },
      body: JSON.stringify({ session, chatId: chat, ...body }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  const queue: PacedSending['queue'] = async (session) =>
    (await gw.api('GET', `/api/${session}/queue`)).body as { total: number; items: Array<{ id: string; state: string }> };

  /** This session's own messages at the webhook, in the order they came (`message.any`, fromMe). */
  const ownMessages = (session: string) =>
    receiver.received
      .filter(({ body }) => body.session === session && body.event === 'message.any' && (body.payload as { fromMe: boolean }).fromMe)
      .map(({ body }) => ({ eventId: body.id as string, messageId: (body.payload as { id: string }).id }));

  /**
   * Each own message's event ids, by message id: a send made twice would be two events (two event
   * ids) for one message id. Deliveries are at least once, so a delivery repeated is one event id.
   */
  const sentMessages = (session: string): Map<string, Set<string>> => {
    const byMessage = new Map<string, Set<string>>();
    for (const { eventId, messageId } of ownMessages(session)) byMessage.set(messageId, (byMessage.get(messageId) ?? new Set()).add(eventId));
    return byMessage;
  };

  return {
    send,
    queue,
    async queueTexts(session, prefix, count) {
      const ids: string[] = [];
      for (let n = 1; n <= count; n++) {
        const id = `${prefix}${String(n).padStart(4, '0')}`;
        const answer = await send(session, { text: `${prefix} ${n}`, id }, '0');
        expect([201, 202], JSON.stringify(answer.body)).toContain(answer.status);
        ids.push(id);
      }
      return ids;
    },
    async held(session, count) {
      await waitFor(
        async () => {
          const { total, items } = await queue(session);
          return total === count - 1 && items.every(({ state }) => state === 'queued');
        },
        `the first send of ${session} out and ${count - 1} held`,
        30_000,
      );
    },
    async release(session, webhooks) {
      const changed = await gw.api('PUT', `/api/sessions/${session}`, { config: { sending: { delay: { minMs: 1000, maxMs: 1000 } }, webhooks } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    },
    async eachOnceInOrder(session, ids) {
      await waitFor(async () => (await queue(session)).total === 0, `the queue of ${session} to empty`, 60_000);
      const messageId = (id: string) => `true_${chat}_${id}`;
      await waitFor(() => ids.every((id) => sentMessages(session).has(messageId(id))), `every send of ${session} at the webhook`, 30_000);
      const sent = sentMessages(session);
      for (const id of ids) expect(sent.get(messageId(id))?.size, `events of ${id}`).toBe(1);
      const order = ownMessages(session)
        .map(({ messageId: id }) => id)
        .filter((id, index, all) => all.indexOf(id) === index);
      expect(order).toEqual(ids.map(messageId));
    },
  };
}
