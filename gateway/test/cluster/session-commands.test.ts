import { CommandObjects } from '@switchboard/kube';
import { OBJECT_STORES, SUBJECTS } from '@switchboard/protocol';
import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCommandChannel } from '../../src/cluster/session-commands.js';

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

/** A file command whose JSON is larger than one message of this server. */
function bigFileCommand() {
  const bytes = Buffer.alloc(nc.info!.max_payload, 9);
  const command = {
    op: 'send.media',
    args: { kind: 'file', chatId: '1@c.us', file: { mimetype: 'application/pdf', data: bytes.toString('base64') } },
  } as const;
  return { bytes, command };
}

async function storedCommands(session: string): Promise<string[]> {
  const bucket = await nc.jetstream().views.os(OBJECT_STORES.commands(session));
  return (await bucket.list()).filter((info) => !info.deleted).map((info) => info.name);
}

describe('the cluster command channel', () => {
  it('sends a command larger than one NATS message through the object store, whole, as the engine pod reads it', async () => {
    // The engine pod's side, as its CommandServer does it: the object the header names, else the body.
    const objects = new CommandObjects(nc);
    const seen: { spilled: boolean; bytes: number }[] = [];
    const pod = nc.subscribe(SUBJECTS.command('big'), {
      callback: (_error, msg) =>
        void (async () => {
          const spilled = await objects.take('big', msg.headers);
          const command = JSON.parse(spilled ?? msg.string()) as { args: { file: { data: string } } };
          const bytes = Buffer.from(command.args.file.data, 'base64').length;
          seen.push({ spilled: spilled !== null, bytes });
          msg.respond(JSON.stringify({ ok: true, result: { bytes } }));
        })(),
    });
    try {
      const { bytes, command } = bigFileCommand();
      expect(await new SessionCommandChannel(nc).send('big', command)).toEqual({ result: { bytes: bytes.length } });
      // A small one still travels in the request itself.
      const small = { ...command, args: { ...command.args, file: { mimetype: 'application/pdf', data: 'JVBERg==' } } };
      expect(await new SessionCommandChannel(nc).send('big', small)).toEqual({ result: { bytes: 4 } });
      expect(seen).toEqual([
        { spilled: true, bytes: bytes.length },
        { spilled: false, bytes: 4 },
      ]);
      expect(await storedCommands('big')).toEqual([]);
    } finally {
      pod.unsubscribe();
    }
  });

  it('with no engine pod listening, answers null and leaves no stored command behind', async () => {
    const { command } = bigFileCommand();
    expect(await new SessionCommandChannel(nc).send('nobody', command)).toBeNull();
    expect(await storedCommands('nobody')).toEqual([]);
  });
});
