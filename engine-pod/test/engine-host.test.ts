import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnvelope } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { CommandError, type Engine, EngineHost, type EngineContext, FileAuthStateStore, type HostedEvent, SandboxEngine } from '../src/index.js';

const silent = { info() {}, warn() {}, error() {} };

function host(engine: 'SANDBOX' | 'NOWEB', factory: (ctx: EngineContext) => Engine, mayConnect?: () => boolean) {
  const events: HostedEvent[] = [];
  const h = new EngineHost({
    ...(mayConnect ? { mayConnect } : {}),
    session: 's1',
    engine,
    factory,
    authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-auth-'))),
    metadata: { a: 'b' },
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => events.push(event),
    log: silent,
  });
  return { h, events };
}

const sandbox = (ctx: EngineContext) => new SandboxEngine(ctx, { qrRenewMs: 10, ackDelaysMs: { server: 1, device: 2 } });

describe('EngineHost', () => {
  it('keeps the recent 3 statuses in session.status, oldest first', async () => {
    const { h, events } = host('SANDBOX', sandbox);
    await h.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await h.stop();
    const statuses = events.filter((e) => e.envelope.event === 'session.status').map((e) => e.envelope.payload);
    expect(statuses.length).toBeGreaterThan(4);
    for (const payload of statuses) expect((payload.statuses as unknown[]).length).toBeLessThanOrEqual(3);
    const last = statuses.at(-1)!;
    expect(last.status).toBe('STOPPED');
    expect((last.statuses as { status: string }[]).map((s) => s.status)).toEqual(['SCAN_QR_CODE', 'SCAN_QR_CODE', 'STOPPED']);
  });

  it('publishes envelopes that parse, with the JSON serialized once and equal to the envelope', async () => {
    const { h, events } = host('SANDBOX', sandbox);
    await h.start();
    await h.stop();
    for (const { envelope, json } of events) {
      expect(JSON.parse(json)).toEqual(envelope);
      expect(() => parseEnvelope(envelope)).not.toThrow();
    }
    const ids = events.map((e) => e.envelope.id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('acknowledges a SANDBOX send SERVER, then DEVICE, even when the DEVICE timer comes first', async () => {
    // A DEVICE delay shorter than SERVER's stands in for timers that fire out of order on a loaded machine.
    const { h, events } = host('SANDBOX', (ctx) => new SandboxEngine(ctx, { qrRenewMs: 60_000, ackDelaysMs: { server: 30, device: 0 } }));
    await h.start();
    await h.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    const sent = (await h.execute({ op: 'send.text', args: { chatId: '15551234567@c.us', text: 'in order', linkPreview: false } })) as { id: string };
    await new Promise((resolve) => setTimeout(resolve, 80));
    await h.stop();
    const acks = events.filter((e) => e.envelope.event === 'message.ack' && e.envelope.payload.id === sent.id).map((e) => e.envelope.payload.ack);
    expect(acks).toEqual([1, 2]);
  });

  it('a SANDBOX send just before a stop, or a restart, still reaches DEVICE: its acknowledgements are given at the stop, not dropped (issue 26)', async () => {
    // Acknowledgements far away: only the stop can give them within the test.
    const { h, events } = host('SANDBOX', (ctx) => new SandboxEngine(ctx, { qrRenewMs: 60_000, ackDelaysMs: { server: 60_000, device: 60_000 } }));
    await h.start();
    await h.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    const send = async (text: string) =>
      ((await h.execute({ op: 'send.text', args: { chatId: '15551234567@c.us', text, linkPreview: false } })) as { id: string }).id;
    const acksOf = (id: string) =>
      events.filter((e) => e.envelope.event === 'message.ack' && e.envelope.payload.id === id).map((e) => e.envelope.payload.ack);
    const first = await send('before the stop');
    const second = await send('also before the stop');
    await h.stop();
    expect(acksOf(first)).toEqual([1, 2]);
    expect(acksOf(second)).toEqual([1, 2]);
    // Given before the session says STOPPED.
    const stopped = events.findIndex((e) => e.envelope.event === 'session.status' && e.envelope.payload.status === 'STOPPED');
    expect(events.findLastIndex((e) => e.envelope.event === 'message.ack')).toBeLessThan(stopped);

    // A restart is a stop and a start: the same.
    await h.start();
    await waitFor(() => h.status === 'WORKING', 'WORKING again');
    const third = await send('before the restart');
    await h.stop();
    await h.start();
    expect(acksOf(third)).toEqual([1, 2]);
    await h.stop();
  });

  it('start and stop are idempotent', async () => {
    const { h, events } = host('SANDBOX', sandbox);
    await h.start();
    await h.start();
    await h.stop();
    await h.stop();
    const statuses = events.filter((e) => e.envelope.event === 'session.status').map((e) => e.envelope.payload.status);
    expect(statuses.filter((s) => s === 'STARTING')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'STOPPED')).toHaveLength(1);
  });

  it('starts no engine while the pod does not hold the session lease (mayConnect), and does once it does', async () => {
    let held = false;
    let made = 0;
    const { h } = host(
      'SANDBOX',
      (ctx) => {
        made++;
        return sandbox(ctx);
      },
      () => held,
    );
    await h.start();
    expect(made).toBe(0);
    expect(h.status).toBe('STOPPED');
    held = true;
    await h.start();
    expect(made).toBe(1);
    expect(h.status).not.toBe('STOPPED');
    await h.stop();
  });

  it('answers NOT_SUPPORTED naming the engine for simulate on a non-SANDBOX session', async () => {
    const { h } = host('NOWEB', sandbox);
    const error = await h.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).code).toBe('NOT_SUPPORTED');
    expect((error as CommandError).message).toContain('NOWEB');
  });

  it('answers WRONG_STATUS with session, status and expected', async () => {
    const { h } = host('SANDBOX', sandbox);
    const error = (await h
      .execute({ op: 'send.text', args: { chatId: '1@c.us', text: 'x', linkPreview: true } })
      .catch((e: unknown) => e)) as CommandError;
    expect(error.code).toBe('WRONG_STATUS');
    expect(error.details).toEqual({ session: 's1', status: 'STOPPED', expected: ['WORKING'] });
  });

  it('reports FAILED when the engine cannot start', async () => {
    const { h } = host('SANDBOX', (ctx) => {
      const engine = sandbox(ctx);
      engine.start = async () => {
        throw new Error('no connection');
      };
      return engine;
    });
    await h.start();
    expect(h.status).toBe('FAILED');
  });
});

describe('FileAuthStateStore', () => {
  it('gets what was set, deletes on null, and forgets everything on clear', async () => {
    const store = new FileAuthStateStore(join(mkdtempSync(join(tmpdir(), 'sb-auth-')), 'nested'));
    await store.set({ 'pre-key': { '1': { k: 1 }, 'a/b:c': { k: 2 } }, creds: { me: { id: 'x' } } });
    expect(await store.get('pre-key', ['1', 'a/b:c', 'missing'])).toEqual({ '1': { k: 1 }, 'a/b:c': { k: 2 } });
    await store.set({ 'pre-key': { '1': null } });
    expect(await store.get('pre-key', ['1'])).toEqual({});
    await store.clear();
    expect(await store.get('creds', ['me'])).toEqual({});
  });
});
