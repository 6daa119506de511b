import { type SessionStatus, SUBJECTS } from '@switchboard/protocol';
import type { NatsConnection, Subscription } from 'nats';

/**
 * Answers a session's command subject the way an engine pod's host does, and publishes its
 * `session.status` events: the NATS half of an engine pod, with no engine behind it.
 */
export class FakeEngine {
  readonly received: string[] = [];
  private readonly subscription: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly session: string,
    private readonly answer: (op: string) => Promise<unknown> = async () => null,
  ) {
    const subscription = nc.subscribe(SUBJECTS.command(session));
    this.subscription = subscription;
    void (async () => {
      for await (const message of subscription) {
        const { op } = JSON.parse(message.string()) as { op: string };
        this.received.push(op);
        const result = await this.answer(op);
        message.respond(JSON.stringify({ ok: true, result }));
      }
    })();
  }

  publishStatus(status: SessionStatus, me?: { id: string; pushName: string }, reason?: string): void {
    const now = Date.now();
    const envelope = {
      id: `evt_${now}`,
      timestamp: now,
      event: 'session.status',
      session: this.session,
      metadata: {},
      payload: {
        name: this.session,
        status,
        statuses: [
          { status: 'STARTING', timestamp: now - 1 },
          { status, timestamp: now },
        ],
        ...(reason ? { reason } : {}),
      },
      ...(me ? { me } : {}),
      environment: { tier: 'CORE', version: 'test', engine: 'SANDBOX' },
      engine: 'SANDBOX',
    };
    this.nc.publish(SUBJECTS.event(this.session, 'session.status'), JSON.stringify(envelope));
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
