import { AppConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import { type NowebSession, pairedSessionForTests } from './harness.js';

const BOB = '15551250001';
const bob = `${BOB}@c.us`;
const GROUP = '120363000000000077@g.us';

const paired = pairedSessionForTests({
  apps: [AppConfig.parse({ app: 'calls', config: { dm: { reject: true, message: 'Busy, text me' }, group: { reject: false } } })],
});
let s: NowebSession;
let phone: FakePhone;

beforeAll(() => {
  ({ s, phone } = paired);
});

describe('2.3 calls app on NOWEB', () => {
  it('declines a direct call on the server, sends call.rejected, then the reply to the caller', async () => {
    const since = s.events.length;
    const id = phone.call(BOB, 'offer', { video: true });
    const rejected = await s.waitForEvent('call.rejected', (p) => p.id === id, since);
    expect(rejected.payload).toMatchObject({ id, from: bob, isVideo: true, isGroup: false });
    const answer = phone.callAnswers.map((node) => getBinaryNodeChild(node, 'reject')).find((reject) => reject?.attrs['call-id'] === id);
    expect(answer?.attrs['call-creator']).toMatch(new RegExp(`^(${BOB}|8${BOB})@`));

    const reply = await s.waitForEvent('message.any', (p) => p.to === bob && p.source === 'api', since);
    expect(reply.payload).toMatchObject({ body: 'Busy, text me', fromMe: true });
    const order = s.events.slice(since).map((e) => e.envelope.event);
    expect(order.indexOf('call.received')).toBeLessThan(order.indexOf('call.rejected'));
    expect(order.indexOf('call.rejected')).toBeLessThan(order.indexOf('message.any'));
    const sentId = (reply.payload.id as string).split('_')[2]!;
    await waitFor(() => phone.sent.some((sent) => sent.id === sentId), 'the reply on the server');
    expect((await phone.read(sentId)).conversation).toBe('Busy, text me');
  });

  it('lets a group call ring when the group rule does not reject', async () => {
    const since = s.events.length;
    const id = phone.call(BOB, 'offer', { group: GROUP });
    await s.waitForEvent('call.received', (p) => p.id === id && p.isGroup === true, since);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.payloads('call.rejected').filter((p) => p.id === id)).toEqual([]);
    expect(phone.callAnswers.some((node) => getBinaryNodeChild(node, 'reject')?.attrs['call-id'] === id)).toBe(false);
  });
});
