import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCommandChannel } from '../../src/cluster/session-commands.js';
import { ApiError } from '../../src/http/errors.js';

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

describe('the cluster command channel', () => {
  it('answers 413 naming the limit when a command (a base64 file) is larger than NATS carries', async () => {
    const maxPayload = nc.info!.max_payload;
    const data = Buffer.alloc(maxPayload).toString('base64');
    const command = { op: 'send.media', args: { kind: 'file', chatId: '1@c.us', file: { mimetype: 'application/pdf', data } } } as const;
    const error = await new SessionCommandChannel(nc).send('big', command).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ statusCode: 413, details: { session: 'big', maxPayload } });
    expect((error as ApiError).message).toContain('send the file by url');
  });
});
