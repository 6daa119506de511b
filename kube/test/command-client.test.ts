import { SUBJECTS } from '@switchboard/protocol';
import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type Msg, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandClient, CommandClientError, CommandObjectError, CommandObjects } from '../src/index.js';

// The one client of the engine command channel, against a real NATS server; the engine pod's
// side is played by a subscriber that answers as its CommandServer would.

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

/** A pod for `session` that answers each request with `answer(msg)` (nothing when it returns null). */
function pod(session: string, answer: (msg: Msg) => Promise<string | null> | string | null) {
  return nc.subscribe(SUBJECTS.command(session), {
    callback: (_error, msg) =>
      void (async () => {
        const reply = await answer(msg);
        if (reply !== null) msg.respond(reply);
      })(),
  });
}

async function failureOf(request: Promise<unknown>): Promise<string> {
  const error = await request.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CommandClientError);
  return (error as CommandClientError).failure;
}

describe('CommandClient', () => {
  const client = () => new CommandClient(nc);

  it('answers the reply, ok or an error reply alike', async () => {
    const sub = pod('c-replies', (msg) =>
      msg.json<{ op: string }>().op === 'host.status'
        ? JSON.stringify({ ok: true, result: { status: 'WORKING' } })
        : JSON.stringify({ ok: false, error: { code: 'NOT_SUPPORTED', message: 'no' } }),
    );
    try {
      expect(await client().request('c-replies', { op: 'host.status' }, 5_000)).toEqual({ ok: true, result: { status: 'WORKING' } });
      expect(await client().request('c-replies', { op: 'host.logout' }, 5_000)).toEqual({
        ok: false,
        error: { code: 'NOT_SUPPORTED', message: 'no' },
      });
    } finally {
      sub.unsubscribe();
    }
  });

  it('tells why there is no reply: nobody listening, no answer in time, an answer that is no CommandReply', async () => {
    expect(await failureOf(client().request('c-nobody', { op: 'host.status' }, 5_000))).toBe('no-responders');
    const silent = pod('c-silent', () => null);
    const garbled = pod('c-garbled', () => '{"ok": "maybe"}');
    try {
      expect(await failureOf(client().request('c-silent', { op: 'host.status' }, 200))).toBe('timeout');
      expect(await failureOf(client().request('c-garbled', { op: 'host.status' }, 5_000))).toBe('unreadable');
    } finally {
      silent.unsubscribe();
      garbled.unsubscribe();
    }
  });

  it('sends a command larger than one NATS message through the object store, which the pod takes once', async () => {
    const objects = new CommandObjects(nc);
    const sub = pod('c-big', async (msg) => {
      const json = (await objects.take('c-big', msg.headers)) ?? msg.string();
      return JSON.stringify({ ok: true, result: { spilled: msg.data.length === 0, length: json.length } });
    });
    try {
      const data = Buffer.alloc(nc.info!.max_payload, 7).toString('base64');
      const command = { op: 'send.media', args: { kind: 'file', chatId: '1@c.us', file: { mimetype: 'application/pdf', data } } } as const;
      const reply = await client().request('c-big', command, 5_000);
      expect(reply).toEqual({ ok: true, result: { spilled: true, length: JSON.stringify(command).length } });
    } finally {
      sub.unsubscribe();
    }
  });

  it("a pod refuses another session's command object, and one already taken", async () => {
    const objects = new CommandObjects(nc);
    const theirs = await objects.put('c-theirs', JSON.stringify({ op: 'host.status' }));
    await expect(objects.take('c-mine', theirs.headers)).rejects.toThrow(CommandObjectError);
    expect(await objects.take('c-theirs', theirs.headers)).toBe(JSON.stringify({ op: 'host.status' }));
    await expect(objects.take('c-theirs', theirs.headers)).rejects.toThrow(/is gone/);
  });
});
