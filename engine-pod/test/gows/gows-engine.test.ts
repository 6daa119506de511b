import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventName, SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandError, DEFAULT_MEDIA_MAX_BYTES, type Engine, type EngineContext, FileAuthStateStore } from '../../src/index.js';
import type { MediaFile } from '../../src/media/media-store.js';
import { GowsEngine } from '../../src/engines/gows/gows-engine.js';
import type { ForwardedMethod } from '../../src/engines/gows/forwarded-methods.js';
import type { GowsOptions } from '../../src/engines/gows/options.js';

const STUB = fileURLToPath(new URL('./stub-engine.ts', import.meta.url));

interface LogLine {
  readonly level: string;
  readonly obj: Record<string, unknown>;
  readonly msg?: string;
}

/** A context that records what the engine reports, over a real file auth-state store. */
function recordingContext(authDir = mkdtempSync(join(tmpdir(), 'sb-gows-'))) {
  const statuses: { status: SessionStatus; reason?: string }[] = [];
  const events: { event: EventName; payload: Record<string, unknown> }[] = [];
  const logs: LogLine[] = [];
  const saved: MediaFile[] = [];
  const me: unknown[] = [];
  const versions: unknown[] = [];
  const context: EngineContext = {
    session: 'g1',
    settings: {},
    authState: new FileAuthStateStore(authDir),
    setStatus: (status, reason) => statuses.push(reason === undefined ? { status } : { status, reason }),
    setMe: (value) => me.push(value),
    setVersions: (value) => versions.push(value),
    emit: (event, payload) => events.push({ event, payload }),
    log: {
      info: (obj, msg) => logs.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
      warn: (obj, msg) => logs.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
      error: (obj, msg) => logs.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    },
    saveMedia: async (file) => {
      saved.push(file);
      return { url: `http://localhost/media/${saved.length}`, mimetype: file.mimetype, filename: file.filename };
    },
    saveMediaStream: async (file, data) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of data) chunks.push(chunk);
      saved.push({ ...file, data: Buffer.concat(chunks) });
      return { url: `http://localhost/media/${saved.length}`, mimetype: file.mimetype, filename: file.filename };
    },
    mediaMaxBytes: DEFAULT_MEDIA_MAX_BYTES,
  };
  return { context, statuses, events, logs, saved, me, versions, authDir };
}

function stubOptions(...flags: string[]): GowsOptions {
  return { command: [process.execPath, STUB, 'stdio', ...flags], exitTimeoutMs: 5_000 };
}

const engines: Engine[] = [];
/** Typed as the host sees it: the optional methods are there or not. */
function engineFor(context: EngineContext, methods: readonly ForwardedMethod[] = ['sendMedia', 'react'], options = stubOptions()): Engine {
  const engine = new GowsEngine(context, options, methods);
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
});

const last = <T>(items: readonly T[]) => items.at(-1);

describe('GowsEngine: the Engine of a GOWS session, a switchboard-gows child process over the engine RPC', () => {
  it('starts the child, forwards its status and versions notifications and answers qr() from the QR the child gives', async () => {
    const { context, statuses, logs, versions } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    await waitFor(async () => last(statuses)?.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
    expect(statuses.map((s) => s.status)).toEqual(['STARTING', 'SCAN_QR_CODE']);
    expect(versions).toEqual([{ library: { name: 'stub', version: '0.0.0' }, client: '2.3000.1' }]);
    expect(engine.qr()).toBe('stub-qr-g1-1');
    // The child's stderr is the session's log, at the child's level, with the session named.
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'stub starting', obj: expect.objectContaining({ session: 'g1', settings: {} }) }),
    );
  });

  it('a SCAN_QR_CODE whose QR the child does not give is still reported; qr() then says there is none yet', async () => {
    const { context, statuses, logs } = recordingContext();
    const engine = engineFor(context, [], stubOptions('--qr-fails'));
    await engine.start();
    await waitFor(async () => last(statuses)?.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
    expect(() => engine.qr()).toThrow("session 'g1' has no QR code yet; try again shortly");
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'GOWS engine announced a QR code it did not give' }));
  });

  it('pairs by code: the child keeps its credentials through auth.set and reports me and WORKING; a restart resumes from them', async () => {
    const { context, statuses, me, authDir } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    await expect(engine.requestCode({ phoneNumber: '15550000000' })).resolves.toEqual({ code: 'ABCD-EFGH' });
    await waitFor(async () => last(statuses)?.status === 'WORKING', 'WORKING');
    expect(me).toEqual([{ id: '15550000000@c.us', pushName: 'Stub' }]);
    expect(() => engine.qr()).toThrow(CommandError);
    await engine.stop();

    const again = recordingContext(authDir);
    const restarted = engineFor(again.context);
    await restarted.start();
    await waitFor(async () => last(again.statuses)?.status === 'WORKING', 'WORKING after restart');
    expect(again.statuses.map((s) => s.status)).not.toContain('SCAN_QR_CODE');
  });

  it('sends text, forwarding the event the child emits and checking the record it answers against the protocol', async () => {
    const { context, events } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    const record = await engine.sendText({ chatId: '15551234567@c.us', text: 'hi' } as never);
    expect(record).toMatchObject({ to: '15551234567@c.us', body: 'hi', fromMe: true, ackName: 'SERVER' });
    await waitFor(async () => events.length === 1, 'message.any');
    expect(events[0]).toMatchObject({ event: 'message.any', payload: { body: 'hi' } });
    const bad = await engine.sendText({ chatId: '1@c.us', text: 'off-contract' } as never).catch((e: unknown) => e);
    expect(bad).toMatchObject({
      code: 'ENGINE_ERROR',
      message: expect.stringContaining("GOWS sendText: the engine's answer does not match the protocol"),
    });
  });

  it("maps the child's errors to CommandError with the code it names", async () => {
    const { context } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    await expect(engine.requestCode({ phoneNumber: '0' })).rejects.toMatchObject({
      name: 'CommandError',
      code: 'INVALID',
      message: 'phoneNumber: not a number',
    });
    await expect(engine.requestCode({ phoneNumber: '1', method: 'sms' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    // The names of the RPC's first design, read as the protocol's; a code that is none is ENGINE_ERROR.
    await expect(engine.requestCode({ phoneNumber: '1' })).rejects.toMatchObject({ code: 'WRONG_STATUS', message: 'not now' });
    await expect(engine.requestCode({ phoneNumber: '2' })).rejects.toMatchObject({ code: 'INVALID', message: 'no such number' });
    await expect(engine.requestCode({ phoneNumber: '3' })).rejects.toMatchObject({ code: 'ENGINE_ERROR', message: 'GOWS requestCode: what' });
  });

  it('sends files as base64; media.save names a file in the spool the host gave the child, which the context keeps byte for byte', async () => {
    const { context, saved } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    const file = { mimetype: 'image/png', filename: 'a.png', data: Buffer.from([0, 1, 2, 255]) };
    const record = await engine.sendMedia!({ kind: 'image', chatId: '1@c.us', file, caption: 'pic' } as never);
    expect(saved).toEqual([file]);
    expect(record.media).toEqual({ url: 'http://localhost/media/1', mimetype: 'image/png', filename: 'a.png' });
  });

  it('refuses a media.save naming a file outside the spool: nothing is read or kept', async () => {
    const { context, saved, logs } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    const file = { mimetype: 'text/plain', filename: null, data: Buffer.from('not for the host') };
    const record = await engine.sendMedia!({ kind: 'file', chatId: '1@c.us', file, caption: 'elsewhere' } as never);
    expect(record.media).toBeNull();
    expect(saved).toEqual([]);
    // The child logs the refusal it got on stderr, which may come after its answer on stdout.
    const refusal = (line: LogLine) => line.level === 'warn' && /^media\.save: path must name a file in /.test(String(line.obj.err));
    await waitFor(async () => logs.some(refusal), "the child's log of the refusal");
  });

  it('kills a child whose stdout line passes the bound, before it grows the host: FAILED, saying why', async () => {
    const { context, statuses, logs } = recordingContext();
    const engine = engineFor(context, ['sendMedia', 'react'], { ...stubOptions(), maxLineLength: 1024 * 1024 });
    await engine.start();
    const failed = await engine.sendText({ chatId: '1@c.us', text: 'endless-line' } as never).catch((e: unknown) => e);
    const reason = 'engine process exited (killed: it wrote a line longer than 1048576 characters on stdout)';
    expect(failed).toMatchObject({ code: 'ENGINE_ERROR', message: expect.stringContaining(reason) });
    await waitFor(async () => last(statuses)?.status === 'FAILED', 'FAILED');
    expect(last(statuses)).toEqual({ status: 'FAILED', reason });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'engine process broke the engine RPC; killing it' }));
  });

  it('has the optional methods it was made with before start, and after start only those the child lists in capabilities', async () => {
    const { context, logs } = recordingContext();
    const engine = engineFor(context, ['sendMedia', 'react', 'sendPoll'], stubOptions('--methods=sendMedia,react,sendSeen'));
    expect(typeof engine.sendPoll).toBe('function');
    expect('sendSeen' in engine).toBe(false);
    await engine.start();
    expect(typeof engine.sendMedia).toBe('function');
    expect(typeof engine.react).toBe('function');
    expect('sendPoll' in engine).toBe(false);
    expect('sendSeen' in engine).toBe(false);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', obj: expect.objectContaining({ missing: ['sendPoll'], unlisted: ['sendSeen'] }) }),
    );
    const reaction = await engine.react!({ chatId: '1@c.us', messageId: 'true_1@c.us_A', reaction: '👍' } as never);
    expect(reaction.reaction).toEqual({ text: '👍', messageId: 'true_1@c.us_A' });
  });

  it('an unexpected exit of the child is FAILED with the reason, and the next start runs a new child', async () => {
    const { context, statuses } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    const crash = await engine.sendText({ chatId: '1@c.us', text: 'crash' } as never).catch((e: unknown) => e);
    expect(crash).toMatchObject({ code: 'ENGINE_ERROR', message: expect.stringContaining('engine process exited (code 3)') });
    await waitFor(async () => last(statuses)?.status === 'FAILED', 'FAILED');
    expect(last(statuses)).toEqual({ status: 'FAILED', reason: 'engine process exited (code 3)' });
    await expect(engine.sendText({ chatId: '1@c.us', text: 'x' } as never)).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await engine.start();
    await waitFor(async () => last(statuses)?.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE again');
  });

  it('stop closes stdin and the child exits by itself; a child that stays is killed after the timeout', async () => {
    const { context, statuses, logs } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    await engine.stop();
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'stdin closed' }));
    expect(statuses.map((s) => s.status)).not.toContain('FAILED');

    const stubborn = recordingContext();
    const staying = engineFor(stubborn.context, [], { ...stubOptions('--ignore-eof'), exitTimeoutMs: 200 });
    await staying.start();
    await staying.stop();
    expect(stubborn.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'engine process did not exit after stdin closed; killing it' }),
    );
    expect(stubborn.statuses.map((s) => s.status)).not.toContain('FAILED');
  });

  it('logout asks the child, which clears the auth state through auth.clear; on a stopped engine the proxy clears it', async () => {
    const { context, authDir, me } = recordingContext();
    const engine = engineFor(context);
    await engine.start();
    await engine.requestCode({ phoneNumber: '15550000000' });
    await expect(context.authState.get('creds', ['me'])).resolves.toHaveProperty('me');
    await engine.logout();
    await expect(context.authState.get('creds', ['me'])).resolves.toEqual({});
    expect(last(me)).toBeNull();

    const stopped = engineFor(recordingContext(authDir).context);
    await context.authState.set({ creds: { me: { jid: 'x' } } });
    await stopped.logout();
    await expect(context.authState.get('creds', ['me'])).resolves.toEqual({});
  });

  it('a missing binary fails the start naming the path and the variable', async () => {
    const { context } = recordingContext();
    const engine = engineFor(context, [], { command: ['/nonexistent/switchboard-gows', 'stdio'], exitTimeoutMs: 1_000 });
    await expect(engine.start()).rejects.toThrow(
      'no GOWS engine binary at /nonexistent/switchboard-gows: make build builds it (engines/gows), or set SWITCHBOARD_GOWS_BIN to where it is',
    );
  });
});
