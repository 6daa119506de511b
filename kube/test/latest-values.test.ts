import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestValues } from '../src/nats/jetstream.js';

// latestValues against a real NATS server: its watcher delivers updates too until it reports the
// current values delivered, so keys written during a read must come back once each.

let server: NatsServer;
let nc: NatsConnection;
beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc.close();
  await server.stop();
});

describe('latestValues: the latest value of every key, each key once', () => {
  it('gives a key written during the read once, at its newest value, and leaves out a deleted key', async () => {
    const kv = await nc.jetstream().views.kv('latest-values');
    const keys = Array.from({ length: 3000 }, (_, i) => `s.k${i}`);
    for (const key of keys) await kv.put(key, '0');
    // Writes while the reads deliver the 3000 keys: each read must still name each key once.
    let writing = true;
    const writer = (async () => {
      for (let round = 1; writing; round++) {
        await kv.put('s.k2999', String(round));
        await kv.put('s.k0', String(round));
      }
    })();
    try {
      for (let read = 0; read < 5; read++) {
        const entries = await latestValues(kv, 's.*', 'test keys');
        const names = entries.map((entry) => entry.key);
        expect(names.length, 'keys read').toBe(new Set(names).size);
        expect(new Set(names)).toEqual(new Set(keys));
      }
    } finally {
      writing = false;
      await writer;
    }
    await kv.delete('s.k1');
    expect((await latestValues(kv, 's.*', 'test keys')).map((entry) => entry.key)).not.toContain('s.k1');
  });
});
