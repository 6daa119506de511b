// Calls and waiting messages through Chromium, for both browser engines on the fake WhatsApp Web:
// whatsapp-web.js's own watch on WhatsApp Web's call collection and its call-reject stanza; WPPConnect's
// (onIncomingCall) and wa-js's `WPP.call.reject`; and whatsapp-web.js's report of messages still
// waiting for their keys (message.waiting, WEBJS's own event).
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001212@c.us', pushName: 'Calls Tests' };
const CALLER = '15554440001@c.us';

describe.each([
  ['WEBJS', pairedWebjs],
  ['WPP', pairedWpp],
] as const)('%s calls through Chromium', (engine, paired) => {
  const session = pairedSuite(paired, 'calls', ME);
  const { payloads, run } = session;

  it('an incoming call is call.received; rejecting it reaches the server as a reject of that call, and call.rejected follows', async () => {
    const id = session.phone.call(CALLER, { isVideo: true });
    const received = await waitFor(() => payloads('call.received').find((p) => p.id === id), 'call.received');
    expect(received).toMatchObject({ id, from: CALLER, isVideo: true, isGroup: false });
    await run({ op: 'call.reject', args: { id, from: CALLER } });
    expect(session.phone.rejectedCalls).toEqual([{ id, from: CALLER }]);
    expect(payloads('call.rejected')).toEqual([expect.objectContaining({ id, from: CALLER, isVideo: true })]);
  });

  it('rejecting a call that is not ringing is NOT_FOUND, and nothing reaches the server', async () => {
    await expect(run({ op: 'call.reject', args: { id: 'NOSUCHCALL', from: CALLER } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(session.phone.rejectedCalls.map((call) => call.id)).not.toContain('NOSUCHCALL');
  });

  // message.waiting is WEBJS's own event (spec 6.3): WPPConnect reports no such messages.
  if (engine === 'WEBJS')
    it('a message still waiting for its keys is message.waiting; the page asks for it again, and once decrypted it is a message', async () => {
      const id = session.phone.waiting(CALLER);
      const serialized = `false_${CALLER}_${id}`;
      const waiting = await waitFor(() => payloads('message.waiting').find((p) => p.id === serialized), 'message.waiting');
      expect(waiting).toMatchObject({ from: CALLER, fromMe: false });
      // whatsapp-web.js asks the sender's phone to send it again a few seconds later.
      await waitFor(() => session.phone.resendRequests.includes(serialized), 'the resend request', 20_000);
      expect(payloads('message').find((p) => p.id === serialized)).toBeUndefined();
      session.phone.decrypted(CALLER, id, { type: 'chat', body: 'now you can read me' });
      const message = await waitFor(() => payloads('message').find((p) => p.id === serialized), 'the decrypted message');
      expect(message).toMatchObject({ body: 'now you can read me', from: CALLER });
    });
});
