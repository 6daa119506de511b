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
});
