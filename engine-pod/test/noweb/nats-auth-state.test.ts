import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsAuthStateStore } from '../../src/index.js';
import { natsForTests } from '../cluster/helpers.js';
import { FakeWaServer } from '../fake-wa/index.js';
import { NowebSession } from './harness.js';

const nats = natsForTests();
let fake: FakeWaServer;
beforeAll(async () => {
  fake = await FakeWaServer.start();
});
afterAll(async () => {
  await fake.close();
});

describe('NOWEB on cluster mode auth state (NATS KV)', () => {
  it('pairs, and a new engine on a new store object for the same session logs in without a QR code', async () => {
    const first = new NowebSession(fake, { store: await NatsAuthStateStore.open(nats.nc, 'noweb-kv'), session: 'noweb-kv' });
    const phone = await first.pair({ pushName: 'Kv' });
    await first.host.stop();
    const again = new NowebSession(fake, { store: await NatsAuthStateStore.open(nats.nc, 'noweb-kv'), session: 'noweb-kv' });
    await again.host.start();
    await again.waitForStatus('WORKING');
    expect(again.host.me).toEqual({ id: phone.contactId, pushName: 'Kv' });
    await again.host.logout();
    expect(await again.store.get('creds', ['creds'])).toEqual({});
    await again.close();
    await first.close();
    expect([...first.invalid, ...again.invalid]).toEqual([]);
  });
});
