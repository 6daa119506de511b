import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTap } from './event-tap.js';
import { startGateway, type ContractGateway } from './harness.js';

/*
 * Spec 2.3: the `calls` app rejects incoming calls in direct and group chats as configured, with
 * an optional reply message; `call.rejected` follows (6.2). Calls are made with the SANDBOX `call`
 * simulation.
 */

const CALLER = '15551240009@c.us';
const GROUP = '120363000000000055@g.us';

let gw: ContractGateway;
const taps: EventTap[] = [];

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await Promise.all(taps.map((tap) => tap.close()));
  await gw.close();
});

async function session(name: string, apps?: unknown[]): Promise<EventTap> {
  const tap = await EventTap.open(gw, name, apps ? { apps } : {});
  taps.push(tap);
  return tap;
}

const calls = (dm: object, group: object, extra: object = {}) => [{ app: 'calls', ...extra, config: { dm, group } }];

/** A call the app left alone still rings: it can be accepted, and no call.rejected came for it. */
async function expectStillRinging(tap: EventTap, id: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(tap.hooks.filter((h) => h.body.event === 'call.rejected' && h.body.payload.id === id)).toEqual([]);
  await tap.simulate({ kind: 'call', status: 'accept', id });
  await tap.delivered('call.accepted', (p) => p.id === id);
}

describe('2.3 calls app', () => {
  it('expand=apps shows the apps with their defaults', async () => {
    await session('calls-dm', calls({ reject: true, message: 'Busy, please text me' }, { reject: false }));
    const info = (await gw.api('GET', '/api/sessions/calls-dm?expand=apps')).body;
    expect(info.apps).toEqual([
      { app: 'calls', enabled: true, config: { dm: { reject: true, message: 'Busy, please text me' }, group: { reject: false } } },
    ]);
    expect((await gw.api('GET', '/api/sessions/calls-dm')).body.apps).toBeUndefined();
  });

  it('rejects a direct call, call.rejected follows, then the reply goes to the caller', async () => {
    const tap = taps.find((t) => t.session === 'calls-dm')!;
    const { id } = await tap.simulate({ kind: 'call', from: CALLER, isVideo: true });
    const received = (await tap.delivered('call.received', (p) => p.id === id)).payload;
    const rejected = (await tap.delivered('call.rejected', (p) => p.id === id)).payload;
    expect(rejected).toMatchObject({ id, from: CALLER, isVideo: true, isGroup: false });
    expect({ ...rejected, timestamp: 0, _data: {} }).toEqual({ ...received, timestamp: 0, _data: {} });
    const reply = (await tap.delivered('message.any', (p) => p.to === CALLER && p.fromMe)).payload;
    expect(reply).toMatchObject({ from: tap.me, source: 'api', body: 'Busy, please text me' });
    const order = tap.hooks.map((h) => h.body);
    const at = (match: (e: any) => boolean) => order.findIndex(match);
    expect(at((e) => e.event === 'call.received' && e.payload.id === id)).toBeLessThan(at((e) => e.event === 'call.rejected' && e.payload.id === id));
    // The reply is sent after the reject: its event is newer (ids sort in the order a session made them).
    const rejectedEnvelope = order.find((e) => e.event === 'call.rejected' && e.payload.id === id);
    const replyEnvelope = order.find((e) => e.event === 'message.any' && e.payload.id === reply.id);
    expect(replyEnvelope.id > rejectedEnvelope.id).toBe(true);
    // It rings no more: it cannot be accepted.
    expect((await gw.api('POST', '/api/calls-dm/sandbox/simulate', { kind: 'call', status: 'accept', id })).status).toBe(404);
  });

  it('leaves group calls alone when the group rule does not reject', async () => {
    const tap = taps.find((t) => t.session === 'calls-dm')!;
    const { id } = await tap.simulate({ kind: 'call', from: CALLER, groupId: GROUP });
    await expectStillRinging(tap, id);
  });

  it('rejects group calls as the group rule says, and direct calls not', async () => {
    const tap = await session('calls-group', calls({ reject: false }, { reject: true, message: 'No group calls' }));
    const group = await tap.simulate({ kind: 'call', from: CALLER, groupId: GROUP });
    expect((await tap.delivered('call.rejected', (p) => p.id === group.id)).payload).toMatchObject({ from: CALLER, isGroup: true });
    expect((await tap.delivered('message.any', (p) => p.to === CALLER && p.fromMe)).payload.body).toBe('No group calls');
    const direct = await tap.simulate({ kind: 'call', from: CALLER });
    await expectStillRinging(tap, direct.id);
  });

  it('rejects without a reply when the rule has no message', async () => {
    const tap = await session('calls-quiet', calls({ reject: true }, { reject: true }));
    const { id } = await tap.simulate({ kind: 'call', from: CALLER });
    await tap.delivered('call.rejected', (p) => p.id === id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tap.hooks.filter((h) => h.body.event === 'message.any')).toEqual([]);
  });

  it('a disabled app does not reject', async () => {
    const tap = await session('calls-off', calls({ reject: true, message: 'x' }, { reject: true }, { enabled: false }));
    const { id } = await tap.simulate({ kind: 'call', from: CALLER });
    await expectStillRinging(tap, id);
  });

  it('apps changed by PUT apply to the next call, without a restart', async () => {
    const tap = await session('calls-later');
    const before = await tap.simulate({ kind: 'call', from: CALLER });
    await expectStillRinging(tap, before.id);
    const statuses = tap.hooks.filter((h) => h.body.event === 'session.status').length;
    const put = await gw.api('PUT', '/api/sessions/calls-later', { apps: calls({ reject: true, message: 'Now busy' }, { reject: true }) });
    expect(put.status).toBe(200);
    expect((await gw.api('GET', '/api/sessions/calls-later?expand=apps')).body.apps[0].config.dm).toEqual({ reject: true, message: 'Now busy' });
    const after = await tap.simulate({ kind: 'call', from: CALLER });
    await tap.delivered('call.rejected', (p) => p.id === after.id);
    expect((await tap.delivered('message.any', (p) => p.to === CALLER && p.fromMe)).payload.body).toBe('Now busy');
    expect(tap.hooks.filter((h) => h.body.event === 'session.status')).toHaveLength(statuses);
    expect((await gw.api('GET', '/api/sessions/calls-later')).body.status).toBe('WORKING');
  });
});
