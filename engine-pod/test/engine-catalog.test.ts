import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUILT_ENGINES,
  type BuiltEngine,
  ENGINE_CATALOG,
  ENGINE_OPS,
  type EngineCommand,
  EVENT_NAMES,
  MessageTextRequest,
  SETTING_ENGINES,
  supportsOperation,
} from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { METHOD_OF } from '../src/dispatch/support.js';
import { waitFor } from '@switchboard/testkit';
import {
  CommandError,
  DEFAULT_MEDIA_MAX_BYTES,
  DEFAULT_SANDBOX_OPTIONS,
  type Engine,
  type EngineContext,
  EngineHost,
  FileAuthStateStore,
  SandboxEngine,
} from '../src/index.js';
import { type MediaUpload, mediaContent } from '../src/engines/noweb/outgoing-content.js';
import { engineFactory } from '../src/engine-factories.js';

const silent = { info() {}, warn() {}, error() {} };

/** An engine as the engine pod makes it, never started: no network, no browser. */
async function engineOf(name: BuiltEngine): Promise<Engine> {
  const context: EngineContext = {
    session: 'catalog',
    settings: {},
    authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-catalog-'))),
    setStatus() {},
    setVersions() {},
    setMe() {},
    emit() {},
    log: silent,
    saveMedia: async () => null,
    saveMediaStream: async () => null,
    mediaMaxBytes: DEFAULT_MEDIA_MAX_BYTES,
  };
  return (await engineFactory(name))(context);
}

/** The events GOWS's Go sources emit (engines/gows/internal/engine/*.go, `e.emit("<event>", ...)`): there, not in its TypeScript proxy. */
function eventsEmittedByGows(): string[] {
  const dir = fileURLToPath(new URL('../../engines/gows/internal/engine/', import.meta.url));
  const text = readdirSync(dir)
    .filter((file) => file.endsWith('.go') && !file.endsWith('_test.go'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  return EVENT_NAMES.filter((event) => text.includes(`emit("${event}"`));
}

/** The event names an engine's sources name (engine-pod/src/engines/<engine>/, simulations included). */
function eventsNamedIn(engine: BuiltEngine): string[] {
  if (engine === 'GOWS') return eventsEmittedByGows();
  const dir = fileURLToPath(new URL(`../src/engines/${engine.toLowerCase()}/`, import.meta.url));
  const text = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  return EVENT_NAMES.filter((event) => text.includes(`'${event}'`));
}

const PEER = '15551234567@c.us';
const VOICE_TO_CONVERT = {
  kind: 'voice',
  chatId: PEER,
  file: { mimetype: 'audio/mpeg', filename: null, data: Buffer.from('not audio') },
  convert: true,
} as const;
const NO_UPLOAD: MediaUpload = { session: 'catalog', upload: () => Promise.reject(new Error('no upload in this test')), logger: silent as never };

/**
 * Each argument the table says an engine refuses, asked of the engine class itself (not through
 * the host, which asks the table): an engine that would take it makes its test fail.
 */
const ASK_WITH_REFUSED_ARGUMENT: Record<string, (engine: Engine) => Promise<unknown>> = {
  'NOWEB auth.requestCode': (engine) => engine.requestCode({ phoneNumber: '15551234567', method: 'sms' }),
  'WEBJS auth.requestCode': (engine) => engine.requestCode({ phoneNumber: '15551234567', method: 'voice' }),
  'GOWS auth.requestCode': (engine) => engine.requestCode({ phoneNumber: '15551234567', method: 'sms' }),
  'WPP auth.requestCode': (engine) => engine.requestCode({ phoneNumber: '15551234567', method: 'sms' }),
  'WEBJS send.text': (engine) => engine.sendText(MessageTextRequest.omit({ session: true }).parse({ chatId: PEER, text: 'x', id: 'CLIENTID0001' })),
  'WEBJS send.media id': (engine) =>
    engine.sendMedia!({ kind: 'image', chatId: PEER, file: { mimetype: 'image/png', filename: null, data: Buffer.from('x') }, id: 'CLIENTID0001' }),
  'WEBJS send.media convert': (engine) => engine.sendMedia!(VOICE_TO_CONVERT),
  'WEBJS send.media asNote': (engine) =>
    engine.sendMedia!({
      kind: 'video',
      chatId: PEER,
      file: { mimetype: 'video/mp4', filename: null, data: Buffer.from('x') },
      asNote: true,
      convert: false,
    }),
  'WEBJS send.poll': (engine) =>
    engine.sendPoll!({ chatId: PEER, poll: { name: 'q', options: ['a', 'b'], multipleAnswers: false }, id: 'CLIENTID0001' }),
  'WEBJS send.location': (engine) => engine.sendLocation!({ chatId: PEER, latitude: 1, longitude: 2, id: 'CLIENTID0001' }),
  'WEBJS send.contactVcard': (engine) => engine.sendContactVcard!({ chatId: PEER, vcards: ['BEGIN:VCARD\nEND:VCARD'], id: 'CLIENTID0001' }),
  'WEBJS status.text id': (engine) =>
    engine.sendTextStatus!({ text: 'x', backgroundColor: '#38b42f', font: 0, linkPreview: false, linkPreviewHighQuality: false, id: 'CLIENTID0001' }),
  'WEBJS status.text contacts': (engine) =>
    engine.sendTextStatus!({ text: 'x', backgroundColor: '#38b42f', font: 0, linkPreview: false, linkPreviewHighQuality: false, contacts: [PEER] }),
  'WEBJS status.media id': (engine) =>
    engine.sendMediaStatus!({ kind: 'image', file: { mimetype: 'image/png', filename: null, data: Buffer.from('x') }, id: 'CLIENTID0001' }),
  'WEBJS status.media contacts': (engine) =>
    engine.sendMediaStatus!({ kind: 'image', file: { mimetype: 'image/png', filename: null, data: Buffer.from('x') }, contacts: [PEER] }),
  'WEBJS status.delete': (engine) => engine.deleteStatus!({ id: 'AAAAAAAAAAAAAAAAA', contacts: [PEER] }),
  'WPP status.text': (engine) =>
    engine.sendTextStatus!({ text: 'x', backgroundColor: '#38b42f', font: 0, linkPreview: false, linkPreviewHighQuality: false, contacts: [PEER] }),
  'WPP status.media id': (engine) =>
    engine.sendMediaStatus!({ kind: 'image', file: { mimetype: 'image/png', filename: null, data: Buffer.from('x') }, id: 'CLIENTID0001' }),
  'WPP status.media contacts': (engine) =>
    engine.sendMediaStatus!({ kind: 'image', file: { mimetype: 'image/png', filename: null, data: Buffer.from('x') }, contacts: [PEER] }),
  'WPP status.delete': (engine) => engine.deleteStatus!({ id: 'AAAAAAAAAAAAAAAAA', contacts: [PEER] }),
  'WPP send.media convert': (engine) => engine.sendMedia!(VOICE_TO_CONVERT),
  'WPP message.forward': (engine) => engine.forwardMessage!({ chatId: PEER, messageId: `false_${PEER}_ABC`, id: 'CLIENTID0001' }),
  'WPP channels.search view': (engine) =>
    engine.searchChannels!({ by: 'view', view: 'RECOMMENDED', countries: ['US'], categories: [], limit: 10, startCursor: '' }),
  'WEBJS message.forward': (engine) => engine.forwardMessage!({ chatId: PEER, messageId: `false_${PEER}_ABC`, id: 'CLIENTID0001' }),
  // NOWEB refuses it while it builds the message, before anything is uploaded.
  'NOWEB send.media': () => mediaContent(VOICE_TO_CONVERT, NO_UPLOAD),
};

const engines = Object.fromEntries(await Promise.all(BUILT_ENGINES.map(async (name) => [name, await engineOf(name)] as const)));

describe('the engine catalog (protocol/src/engine-catalog.ts) says what the engine classes do', () => {
  describe.each(BUILT_ENGINES)('%s', (name) => {
    const engine = engines[name]!;
    const entry = ENGINE_CATALOG[name];

    it('is the engine the engine pod makes for that name', () => {
      expect(engine.name).toBe(name);
    });

    it.each(ENGINE_OPS)('%s: listed exactly when the class has the method the op needs', (op) => {
      const method = METHOD_OF[op];
      const has = method === null || typeof engine[method] === 'function';
      expect(supportsOperation(name, op), `${name} ${op} (${method ?? 'every engine'})`).toBe(has);
    });

    it('rejects calls exactly when the class can decline one', () => {
      expect(entry.callRejection).toBe(typeof engine.rejectCall === 'function');
    });

    it('lists the events its sources emit, session.status, which every host emits, and message.ack.group, which the host derives from message.ack', () => {
      const named = eventsNamedIn(name);
      const derived = named.includes('message.ack') ? ['message.ack.group'] : [];
      expect([...entry.events].sort()).toEqual([...new Set(['session.status', ...named, ...derived])].sort());
    });

    it('pairs by passkey exactly when the class has passkey pairing, by QR code and code always', () => {
      expect(entry.pairing.includes('passkey')).toBe(typeof engine.passkeyChallenge === 'function');
      expect(entry.pairing).toEqual(expect.arrayContaining(['qr', 'code']));
    });

    it.each(entry.refusedArguments.map((refused) => [refused.op, refused.field] as const))('refuses %s with %s itself', async (op, field) => {
      const ask = ASK_WITH_REFUSED_ARGUMENT[`${name} ${op} ${field}`] ?? ASK_WITH_REFUSED_ARGUMENT[`${name} ${op}`];
      expect(ask, `a way to ask ${name} for ${op} with ${field}`).toBeDefined();
      // In the words the host and the gateway use for the catalog's refusals (command-rules.ts).
      await expect(ask!(engine)).rejects.toMatchObject({
        code: 'NOT_SUPPORTED',
        message: expect.stringMatching(new RegExp(`^engine ${name} does not support .+ \\(session 'catalog'\\)$`, 's')),
        details: { session: 'catalog', engine: name },
      });
    });

    it('honours exactly the settings SETTING_ENGINES gives it', () => {
      const honoured = Object.entries(SETTING_ENGINES).flatMap(([setting, engines]) => (engines.includes(name) ? [setting] : []));
      expect([...entry.settings].sort()).toEqual(honoured.sort());
    });
  });

  it('an engine without a method the table gives it answers NOT_SUPPORTED in the same words', async () => {
    const host = new EngineHost({
      session: 'catalog',
      engine: 'SANDBOX',
      factory: (context) => Object.assign(new SandboxEngine(context, DEFAULT_SANDBOX_OPTIONS), { sendPoll: undefined }),
      authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-catalog-'))),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish() {},
      log: silent,
    });
    await host.start();
    await waitFor(async () => host.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
    await host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    await waitFor(async () => host.status === 'WORKING', 'WORKING');
    const error = await host
      .execute({ op: 'send.poll', args: { chatId: '1@c.us', poll: { name: 'q', options: ['a', 'b'], multipleAnswers: false } } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'NOT_SUPPORTED',
      message: "engine SANDBOX does not support polls (session 'catalog')",
      details: { session: 'catalog', engine: 'SANDBOX' },
    });
    await host.stop();
  });

  it('a host answers an op the table denies with NOT_SUPPORTED naming the engine, before it looks at the status', async () => {
    const cases: [BuiltEngine, EngineCommand, string][] = [
      ['WEBJS', { op: 'send.list', args: {} } as EngineCommand, 'lists'],
      ['WEBJS', { op: 'presence.list' }, 'reading presence'],
      ['NOWEB', { op: 'send.list', args: {} } as EngineCommand, 'lists'],
    ];
    for (const [engine, command, what] of cases) {
      const host = new EngineHost({
        session: 'catalog',
        engine,
        factory: await engineFactory(engine),
        authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-catalog-'))),
        metadata: {},
        environment: { tier: 'CORE', version: 'test' },
        publish() {},
        log: silent,
      });
      const error = await host.execute(command).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommandError);
      expect(error).toMatchObject({
        code: 'NOT_SUPPORTED',
        message: `engine ${engine} does not support ${what} (session 'catalog')`,
        details: { session: 'catalog', engine },
      });
    }
  });
});
