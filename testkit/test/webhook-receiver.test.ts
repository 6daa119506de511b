import { afterEach, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../src/index.js';

describe('WebhookReceiver', () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.stop();
  });

  it('listens on 127.0.0.1 by default, or on the address given (a real node reaches the host at its bridge address)', async () => {
    receiver = await new WebhookReceiver().start();
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
    await receiver.stop();
    // Another loopback address stands in for the bridge one: tests dial nothing else.
    receiver = await new WebhookReceiver().start(0, '127.0.0.2');
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/hook$/);
    const response = await fetch(receiver.url, { method: 'POST', body: JSON.stringify({ event: 'message', id: 'evt_1' }) });
    expect(response.status).toBe(200);
    expect(receiver.events('message')).toEqual([{ event: 'message', id: 'evt_1' }]);
  });

  it("reads one session's events of a name, those whose payload matches, in the order they came", async () => {
    receiver = await new WebhookReceiver().start();
    const hooks = [
      { event: 'session.status', session: 'a', payload: { status: 'STARTING' } },
      { event: 'session.status', session: 'b', payload: { status: 'WORKING' } },
      { event: 'message', session: 'a', payload: { body: 'hi' } },
      { event: 'session.status', session: 'a', payload: { status: 'WORKING' } },
    ];
    for (const hook of hooks) await fetch(receiver.url, { method: 'POST', body: JSON.stringify(hook) });
    expect(receiver.sessionEvents('a', 'session.status')).toEqual([hooks[0], hooks[3]]);
    expect(receiver.sessionEvents('a', 'session.status', (p: { status: string }) => p.status === 'WORKING')).toEqual([hooks[3]]);
    expect(receiver.sessionEvents('c', 'session.status')).toEqual([]);
  });
});
