import { CallPayload } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { expectValidEnvelopes, webjsSession } from './harness.js';

// Declining calls on WEBJS: the library's Call.reject on the offer the `call` event brought.

const ALICE = '15551234567@c.us';

describe('WEBJS call.reject', () => {
  it('Call.reject on the ringing call, then call.rejected with its call.received fields', async () => {
    const s = webjsSession();
    await s.working();
    const offer = s.client.ring(ALICE);
    await s.host.execute({ op: 'call.reject', args: { id: offer.id, from: ALICE } });
    expect(s.client.calls).toContain(`rejectCall ${offer.id}`);
    const [received] = s.payloads('call.received');
    const [rejected] = s.payloads('call.rejected');
    expect(CallPayload.parse(rejected)).toMatchObject({ ...received, timestamp: expect.any(Number) });
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('a call that is not ringing: NOT_FOUND, nothing asked of the library', async () => {
    const s = webjsSession();
    await s.working();
    await expect(s.host.execute({ op: 'call.reject', args: { id: 'NOSUCHCALL', from: ALICE } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(s.client.calls.filter((call) => call.startsWith('rejectCall'))).toEqual([]);
  });
});
