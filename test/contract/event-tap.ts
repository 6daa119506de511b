import { envelopeSchema, type EventName } from '@switchboard/protocol';
import { type ReceivedHook, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { expect } from 'vitest';
import { ADMIN_KEY, type ContractGateway, workingSession } from './harness.js';

/** Events reach the receiver through NATS and a webhook worker in cluster mode: give them time. */
const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * Both ends a client of spec 6.1 has, on one SANDBOX session: a webhook receiver that checks
 * the HMAC (every event: `*` and `message.ack.group`), and a websocket client asking for every
 * event (`*`, `engine.event` and `message.ack.group`). `delivered` waits until an event has arrived at both, and checks what both
 * got against the protocol schema of that event.
 */
export class EventTap {
  private constructor(
    readonly gw: ContractGateway,
    readonly session: string,
    readonly receiver: WebhookReceiver,
    readonly ws: WsClient,
    /** What the `scan` simulation answered: `{me}`. */
    readonly paired: { me: { id: string; pushName: string } },
  ) {}

  static async open(gw: ContractGateway, session: string, extra: Record<string, unknown> = {}): Promise<EventTap> {
    const secret = `${session}-hmac-secret`;
    const receiver = await new WebhookReceiver(secret).start();
    // Before the session exists, so its first session.status reaches the socket too.
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${session}&events=*&events=engine.event&events=message.ack.group`);
    // `message.ack.group` is sent only to filters that name it (`*` leaves it out).
    const webhooks = [{ url: receiver.url, events: ['*', 'message.ack.group'], hmac: { key: secret } }];
    const paired = await workingSession(gw, session, { engine: 'SANDBOX', config: { webhooks }, ...extra });
    return new EventTap(gw, session, receiver, ws, paired);
  }

  get me(): string {
    return this.paired.me.id;
  }

  /** Runs a simulation; it must answer 201. */
  async simulate(body: Record<string, unknown>): Promise<any> {
    const res = await this.gw.api('POST', `/api/${this.session}/sandbox/simulate`, body);
    if (res.status !== 201) throw new Error(`simulate ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /**
   * The first `name` event whose payload matches, once the webhook receiver (HMAC valid) and the
   * websocket client both have it: the same envelope, valid against that event's schema.
   */
  async delivered(name: EventName, match: (payload: any) => boolean = () => true): Promise<any> {
    const hook = await waitFor(
      () => this.receiver.received.find((h) => h.body.event === name && h.body.session === this.session && match(h.body.payload)),
      `${name} at the webhook`,
      DELIVERY_TIMEOUT_MS,
    );
    const frame = await waitFor(() => this.ws.frames.find((f) => f.id === hook.body.id), `${name} ${hook.body.id} on /ws`, DELIVERY_TIMEOUT_MS);
    expect(hook.hmacValid).toBe(true);
    expect(frame).toEqual(hook.body);
    const parsed = envelopeSchema(name).safeParse(hook.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    return hook.body;
  }

  /** Every envelope the webhook received, in order. */
  get hooks(): readonly ReceivedHook[] {
    return this.receiver.received.filter((h) => h.body.session === this.session);
  }

  async close(): Promise<void> {
    this.ws.close();
    await this.receiver.stop();
  }
}

/** A message id of spec 2.5: `{fromMe}_{chatId}_{messageId}[_{participant}]`. */
export const MESSAGE_ID = /^(true|false)_[^_]+@(c\.us|g\.us|lid)_[0-9A-Za-z]+(_[^_]+@(c\.us|lid))?$/;
