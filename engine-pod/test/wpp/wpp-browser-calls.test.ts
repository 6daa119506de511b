// WPP's calls through Chromium: WPPConnect's watch on WhatsApp Web's call collection
// (onIncomingCall) and wa-js's `WPP.call.reject`, unmodified, on the fake WhatsApp Web.
import type { EventName } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550001313@c.us', pushName: 'WPP Calls' };
const CALLER = '15554440002@c.us';

describe('WPP calls through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    session = await pairedWpp('calls', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  it('an incoming call is call.received; rejecting it reaches the server as a reject of that call, and call.rejected follows', async () => {
    const id = phone.call(CALLER, { isVideo: true });
    const received = await waitFor(() => payloads('call.received').find((p) => p.id === id), 'call.received');
    expect(received).toMatchObject({ id, from: CALLER, isVideo: true, isGroup: false });
    await host.execute({ op: 'call.reject', args: { id, from: CALLER } });
    expect(phone.rejectedCalls).toEqual([{ id, from: CALLER }]);
    expect(payloads('call.rejected')).toEqual([expect.objectContaining({ id, from: CALLER, isVideo: true })]);
  });

  it('rejecting a call that is not ringing is NOT_FOUND, and nothing reaches the server', async () => {
    await expect(host.execute({ op: 'call.reject', args: { id: 'NOSUCHCALL', from: CALLER } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(phone.rejectedCalls.map((call) => call.id)).not.toContain('NOSUCHCALL');
  });
});
