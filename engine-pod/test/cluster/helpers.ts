import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { type ConnectionOptions, connect, type JetStreamManager, type NatsConnection, type StoredMsg } from 'nats';
import { afterAll, beforeAll } from 'vitest';

export const silent = { info() {}, warn() {}, error() {} };

/** Every message a stream holds on subjects starting with `prefix`, in stream order. */
export async function streamMessages(jsm: JetStreamManager, stream: string, prefix: string): Promise<StoredMsg[]> {
  const { state } = await jsm.streams.info(stream);
  const found: StoredMsg[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    try {
      const msg = await jsm.streams.getMessage(stream, { seq });
      if (msg.subject.startsWith(prefix)) found.push(msg);
    } catch {
      // a gap: the sequence was removed
    }
  }
  return found;
}

/** One real NATS server and one client connection for the tests of a file, set up and torn down around them. */
export function natsForTests(options: ConnectionOptions = {}): { readonly server: NatsServer; readonly nc: NatsConnection } {
  let server: NatsServer | undefined;
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, ...options });
  });
  afterAll(async () => {
    if (nc && !nc.isClosed()) await nc.close();
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get nc() {
      return nc!;
    },
  };
}
