import { purgeSessionAuth } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { authKeyToken, NatsAuthStateStore } from '../../src/index.js';
import { natsForTests } from './helpers.js';

const nats = natsForTests();

describe('NatsAuthStateStore', () => {
  it('purging a session before any was paired finds nothing (no bucket yet)', async () => {
    expect(await purgeSessionAuth(nats.nc, 'early')).toBe(0);
  });

  it('reads back what was set, and only the ids asked for that exist', async () => {
    const store = await NatsAuthStateStore.open(nats.nc, 'auth-a');
    await store.set({ creds: { me: { id: '1@c.us' }, noise: { n: 1 } }, 'pre-key': { '1': 'a', '2': 'b' } });
    expect(await store.get('creds', ['me', 'missing'])).toEqual({ me: { id: '1@c.us' } });
    expect(await store.get('pre-key', ['1', '2', '3'])).toEqual({ '1': 'a', '2': 'b' });
  });

  it('deletes an id set to null, and overwrites one set again', async () => {
    const store = await NatsAuthStateStore.open(nats.nc, 'auth-b');
    await store.set({ keys: { a: 1, b: 2 } });
    await store.set({ keys: { a: null, b: 3 } });
    expect(await store.get('keys', ['a', 'b'])).toEqual({ b: 3 });
  });

  it('keeps types and ids with any characters apart', async () => {
    const store = await NatsAuthStateStore.open(nats.nc, 'auth-c');
    const ids = ['a.b', 'a:b', 'a b', '>', '*', '', 'ü/é', '12345@s.whatsapp.net:3', 'a_b=c-d'];
    await store.set({ 'sender-key.x': Object.fromEntries(ids.map((id, i) => [id, i])) });
    await store.set({ 'sender-key': { 'x.a.b': 'other type' } });
    expect(await store.get('sender-key.x', ids)).toEqual(Object.fromEntries(ids.map((id, i) => [id, i])));
    expect(await store.get('sender-key', ['x.a.b'])).toEqual({ 'x.a.b': 'other type' });
    for (const id of ids) expect(authKeyToken(id)).toMatch(/^[-_=a-zA-Z0-9]+$/);
  });

  it('clear forgets every key of the session and leaves other sessions alone', async () => {
    const mine = await NatsAuthStateStore.open(nats.nc, 'auth-d');
    const other = await NatsAuthStateStore.open(nats.nc, 'auth-d2');
    await mine.set({ creds: { me: 1 }, keys: { a: 1 } });
    await mine.set({ keys: { b: null } });
    await other.set({ creds: { me: 2 } });
    await mine.clear();
    expect(await mine.get('creds', ['me'])).toEqual({});
    expect(await mine.get('keys', ['a', 'b'])).toEqual({});
    expect(await other.get('creds', ['me'])).toEqual({ me: 2 });
    await mine.set({ creds: { me: 3 } });
    expect(await mine.get('creds', ['me'])).toEqual({ me: 3 });
  });

  it('purgeSessionAuth logs a stopped session out without its engine', async () => {
    const store = await NatsAuthStateStore.open(nats.nc, 'auth-e');
    await store.set({ creds: { me: 1, other: 2 } });
    expect(await purgeSessionAuth(nats.nc, 'auth-e')).toBe(2);
    expect(await store.get('creds', ['me', 'other'])).toEqual({});
    expect(await purgeSessionAuth(nats.nc, 'never-paired')).toBe(0);
  });
});
