import { CommandObjects } from '@switchboard/kube';
import { type CommandReply, OBJECT_STORES, SUBJECTS } from '@switchboard/protocol';
import type { MsgHdrs } from 'nats';
import { describe, expect, it } from 'vitest';
import { CommandServer, type Engine, type EngineContext, EngineHost, type HostedEvent, NatsAuthStateStore, SandboxEngine } from '../../src/index.js';
import { natsForTests, silent } from './helpers.js';

const nats = natsForTests();

async function serve(session: string, factory: (ctx: EngineContext) => Engine = (ctx) => new SandboxEngine(ctx)) {
  const errors: object[] = [];
  const events: HostedEvent[] = [];
  const log = { ...silent, error: (obj: object) => errors.push(obj) };
  const host = new EngineHost({
    session,
    engine: 'SANDBOX',
    factory,
    authState: await NatsAuthStateStore.open(nats.nc, session),
    metadata: {},
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => events.push(event),
    log,
  });
  const server = new CommandServer({ nc: nats.nc, session, host, log });
  server.start();
  await host.start();
  const send = async (command: unknown): Promise<CommandReply> => {
    const body = typeof command === 'string' ? command : JSON.stringify(command);
    const reply = await nats.nc.request(SUBJECTS.command(session), body, { timeout: 5_000 });
    return reply.json<CommandReply>();
  };
  return { host, server, send, errors, events };
}

describe('CommandServer: the command contract over NATS', () => {
  it('runs engine commands and host.status like a direct call', async () => {
    const { host, server, send } = await serve('c-engine');
    expect(await send({ op: 'host.status' })).toMatchObject({ ok: true, result: { status: 'SCAN_QR_CODE', me: null } });
    const qr = await send({ op: 'auth.qr' });
    expect(qr).toMatchObject({ ok: true, result: { value: expect.stringMatching(/^2@/) } });
    expect(await send({ op: 'sandbox.simulate', args: { kind: 'scan' } })).toMatchObject({ ok: true });
    const status = await send({ op: 'host.status' });
    expect(status).toMatchObject({ ok: true, result: { status: 'WORKING', me: { id: '15550000000@c.us' } } });
    expect((status as { result: { statuses: unknown[] } }).result.statuses.length).toBeLessThanOrEqual(3);
    expect(await send({ op: 'me' })).toMatchObject({ ok: true, result: { id: '15550000000@c.us' } });
    await server.close();
    await host.stop();
  });

  it('answers a command the status does not allow with WRONG_STATUS and its details', async () => {
    const { host, server, send } = await serve('c-status');
    const reply = await send({ op: 'send.text', args: { chatId: '1@c.us', text: 'hi' } });
    expect(reply).toEqual({
      ok: false,
      error: {
        code: 'WRONG_STATUS',
        message: expect.stringContaining('SCAN_QR_CODE'),
        details: { session: 'c-status', status: 'SCAN_QR_CODE', expected: ['WORKING'] },
      },
    });
    await server.close();
    await host.stop();
  });

  it('answers INVALID naming each field, for bad JSON, an unknown op and bad args', async () => {
    const { host, server, send } = await serve('c-invalid');
    expect(await send('{nope')).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    const unknown = await send({ op: 'auth.nope' });
    const opIssue = { path: 'op', reason: expect.stringContaining("'host.status'") };
    expect(unknown).toMatchObject({ ok: false, error: { code: 'INVALID', details: { issues: [opIssue] } } });
    const badArgs = await send({ op: 'send.text', args: { chatId: 5 } });
    const paths = (badArgs as { error: { details: { issues: { path: string }[] } } }).error.details.issues.map((i) => i.path);
    expect(paths).toEqual(['args.chatId', 'args.text']);
    await server.close();
    await host.stop();
  });

  it('answers ENGINE_ERROR for an unexpected failure, logs it, and tells the client nothing internal', async () => {
    const broken = (ctx: EngineContext): Engine => {
      const sandbox = new SandboxEngine(ctx);
      return Object.assign(sandbox, {
        qr: () => {
          throw new Error('secret internals');
        },
      });
    };
    const { host, server, send, errors } = await serve('c-broken', broken);
    const reply = await send({ op: 'auth.qr' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'ENGINE_ERROR' } });
    expect(JSON.stringify(reply)).not.toContain('secret');
    expect(errors).toHaveLength(1);
    await server.close();
    await host.stop();
  });

  it('host.setMetadata applies to the next event; host.logout unpairs and starts again', async () => {
    const { host, server, send } = await serve('c-host');
    await send({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    expect(await send({ op: 'host.setMetadata', args: { metadata: { team: 'sales' } } })).toEqual({ ok: true, result: null });
    expect(await send({ op: 'host.setMetadata', args: {} })).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    expect(await send({ op: 'host.logout' })).toEqual({ ok: true, result: null });
    expect(await send({ op: 'host.status' })).toMatchObject({ ok: true, result: { status: 'SCAN_QR_CODE', me: null } });
    await server.close();
    await host.stop();
  });

  it('host.setApps turns the calls app on for the next call, without a restart', async () => {
    const { host, server, send, events } = await serve('c-apps');
    await send({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    const rejected = () => events.filter((e) => e.envelope.event === 'call.rejected').map((e) => e.envelope.payload.id);
    const first = await send({ op: 'sandbox.simulate', args: { kind: 'call', from: '15551240001@c.us' } });
    expect(first).toMatchObject({ ok: true });
    const apps = [{ app: 'calls', config: { dm: { reject: true }, group: { reject: false } } }];
    expect(await send({ op: 'host.setApps', args: { apps } })).toEqual({ ok: true, result: null });
    expect(await send({ op: 'host.setApps', args: { apps: [{ app: 'chatwoot' }] } })).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    const second = (await send({ op: 'sandbox.simulate', args: { kind: 'call', from: '15551240001@c.us' } })) as { result: { id: string } };
    expect(rejected()).toEqual([second.result.id]);
    expect(host.status).toBe('WORKING');
    await server.close();
    await host.stop();
  });

  it('after close it takes no more commands', async () => {
    const { host, server, send } = await serve('c-closed');
    await server.close();
    await expect(send({ op: 'host.status' })).rejects.toThrow();
    await host.stop();
  });
});

describe('CommandServer: commands too large for one NATS message (the session’s command object store)', () => {
  const request = async (session: string, headers: MsgHdrs) => {
    const reply = await nats.nc.request(SUBJECTS.command(session), '', { timeout: 5_000, headers });
    return reply.json<CommandReply>();
  };

  it('runs the command the header names, once, and deletes its object', async () => {
    const { host, server, send } = await serve('c-spilled');
    await send({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    const objects = new CommandObjects(nats.nc);
    // Larger than the 1 MB the test server carries in one message.
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(1_500_000, 7)]);
    const command = {
      op: 'send.media',
      args: { kind: 'image', chatId: '1@c.us', file: { mimetype: 'image/png', filename: 'big.png', data: png.toString('base64') } },
    };
    const stored = await objects.put('c-spilled', JSON.stringify(command));
    expect(stored.name).toMatch(/^c-spilled\//);

    const reply = await request('c-spilled', stored.headers);
    expect(reply).toMatchObject({ ok: true, result: { hasMedia: true, _data: { type: 'image', filename: 'big.png', size: png.length } } });
    // Taken: a second request with the same header finds nothing, and the bucket is empty.
    expect(await request('c-spilled', stored.headers)).toMatchObject({
      ok: false,
      error: { code: 'INVALID', message: expect.stringContaining('is gone') },
    });
    const bucket = await nats.nc.jetstream().views.os(OBJECT_STORES.commands('c-spilled'));
    expect((await bucket.list()).filter((info) => !info.deleted)).toEqual([]);
    await server.close();
    await host.stop();
  });

  it("refuses an object of another session's, and leaves it", async () => {
    const { host, server } = await serve('c-mine');
    const objects = new CommandObjects(nats.nc);
    const theirs = await objects.put('c-theirs', JSON.stringify({ op: 'host.status' }));
    expect(await request('c-mine', theirs.headers)).toMatchObject({
      ok: false,
      error: { code: 'INVALID', message: expect.stringContaining("is not one of session 'c-mine'") },
    });
    const bucket = await nats.nc.jetstream().views.os(OBJECT_STORES.commands('c-theirs'));
    expect(await bucket.info(theirs.name)).toMatchObject({ name: theirs.name, deleted: false });
    await objects.remove('c-theirs', theirs.name);
    await server.close();
    await host.stop();
  });
});
