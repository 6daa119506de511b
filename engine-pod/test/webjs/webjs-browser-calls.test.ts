// Calls and waiting messages through Chromium: whatsapp-web.js's own watch on WhatsApp Web's call
// collection and its call-reject stanza, and its report of messages still waiting for their keys
// (message.waiting, WEBJS's own event), on the fake WhatsApp Web.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHost, FileAuthStateStore, type HostedEvent, webjsEngineFactory } from '../../src/index.js';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../fake-web/index.js';

const silent = { info() {}, warn() {}, error() {} };
const ME = { id: '15550001212@c.us', pushName: 'Calls Tests' };
const CALLER = '15554440001@c.us';

describe('WEBJS calls and waiting messages through Chromium', () => {
  let fake: FakeWhatsAppWeb;
  let host: EngineHost;
  let phone: FakeWebPhone;
  const dirs: string[] = [];
  const events: HostedEvent[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `sb-webjs-${name}-`));
    dirs.push(dir);
    return dir;
  };
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    fake = await FakeWhatsAppWeb.start();
    host = new EngineHost({
      session: 'calls',
      engine: 'WEBJS',
      factory: webjsEngineFactory(fake.webjsOptions(tempDir('profiles'))),
      authState: new FileAuthStateStore(tempDir('auth')),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => events.push(event),
      log: silent,
    });
    await host.start();
    await waitFor(() => host.status === 'SCAN_QR_CODE', 'WEBJS to show a QR code', 30_000);
    phone = await fake.scanQr(((await host.execute({ op: 'auth.qr' })) as { value: string }).value, ME);
    await waitFor(() => host.status === 'WORKING', 'WEBJS to be WORKING', 30_000);
  });
  afterAll(async () => {
    await host?.stop();
    await fake?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

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

  it('a message still waiting for its keys is message.waiting; the page asks for it again, and once decrypted it is a message', async () => {
    const id = phone.waiting(CALLER);
    const serialized = `false_${CALLER}_${id}`;
    const waiting = await waitFor(() => payloads('message.waiting').find((p) => p.id === serialized), 'message.waiting');
    expect(waiting).toMatchObject({ from: CALLER, fromMe: false });
    // whatsapp-web.js asks the sender's phone to send it again a few seconds later.
    await waitFor(() => phone.resendRequests.includes(serialized), 'the resend request', 20_000);
    expect(payloads('message').find((p) => p.id === serialized)).toBeUndefined();
    phone.decrypted(CALLER, id, { type: 'chat', body: 'now you can read me' });
    const message = await waitFor(() => payloads('message').find((p) => p.id === serialized), 'the decrypted message');
    expect(message).toMatchObject({ body: 'now you can read me', from: CALLER });
  });
});
