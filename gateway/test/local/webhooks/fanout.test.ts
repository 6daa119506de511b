import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { InProcessEventBus } from '../../../src/events/event-bus.js';
import { WebhookFanout } from '../../../src/local/webhooks/fanout.js';
import { closedAfterEach, makeEvent } from '../../webhooks/support.js';

const { fixture } = closedAfterEach();

function setup(globalHook: WebhookConfig | null) {
  const f = fixture();
  const errors: unknown[] = [];
  const bus = new InProcessEventBus((error) => errors.push(error));
  const kicks = { count: 0 };
  const sessionHooks: Record<string, WebhookConfig[]> = {
    alpha: [
      { url: 'http://messages.test/', events: ['message'] },
      { url: 'http://status.test/', events: ['session.status'] },
    ],
  };
  const fanout = new WebhookFanout({
    bus,
    outbox: f.outbox,
    dispatcher: { enqueued: () => void kicks.count++ },
    webhooksOf: (session) => sessionHooks[session] ?? [],
    globalHook,
  });
  fanout.start();
  // The queues send to the webhooks the fan-out saw.
  f.useWebhooks((session) => sessionHooks[session] ?? [], globalHook);
  const urlsOf = (eventId: string) =>
    f
      .pendingRows()
      .filter((r) => r.eventId === eventId)
      .map((r) => r.target.url)
      .sort();
  return { f, bus, fanout, kicks, errors, urlsOf };
}

describe('6.1 which webhooks get an event', () => {
  it("enqueues for the session's webhooks whose events list it, plus the global hook", () => {
    const { bus, kicks, urlsOf } = setup({ url: 'http://global.test/', events: ['message', 'session.status'] });
    const message = makeEvent('alpha', 0, 'message');
    const status = makeEvent('beta', 0, 'session.status');
    bus.publish(message);
    bus.publish(status);

    expect(urlsOf(message.envelope.id)).toEqual(['http://global.test/', 'http://messages.test/']);
    expect(urlsOf(status.envelope.id)).toEqual(['http://global.test/']);
    expect(kicks.count).toBe(2);
  });

  it('enqueues nothing and does not kick when no webhook wants the event', () => {
    const { f, bus, kicks } = setup({ url: 'http://global.test/', events: ['message'] });
    bus.publish(makeEvent('alpha', 0, 'message.ack'));
    expect(f.outbox.pendingCount()).toBe(0);
    expect(kicks.count).toBe(0);
  });

  it('stops enqueueing once stopped', () => {
    const { f, bus, fanout } = setup(null);
    fanout.stop();
    bus.publish(makeEvent('alpha', 0, 'message'));
    expect(f.outbox.pendingCount()).toBe(0);
  });

  it('reports a failed outbox write through the bus instead of dropping it silently', () => {
    const { f, bus, errors } = setup(null);
    f.db.close();
    bus.publish(makeEvent('alpha', 0, 'message'));
    expect(errors).toHaveLength(1);
  });
});
