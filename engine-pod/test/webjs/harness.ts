import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventEnvelope, type EventName, envelopeSchema } from '@switchboard/protocol';
import { expect } from 'vitest';
import { EngineHost, type EngineHostOptions, FileAuthStateStore, type InvalidEvent } from '../../src/index.js';
import { WebjsEngine } from '../../src/engines/webjs/webjs-engine.js';
import { ScriptedClient } from './scripted-client.js';

const silent = { info() {}, warn() {}, error() {} };

/** A WEBJS session on the real EngineHost, its client scripted, its events collected. */
export function webjsSession(options: { readonly media?: EngineHostOptions['media'] } = {}) {
  const client = new ScriptedClient();
  const events: EventEnvelope[] = [];
  /** What the engine and host logged as warnings. */
  const warnings: { obj: object; msg?: string | undefined }[] = [];
  /** What the host dropped for not matching its schema. */
  const dropped: InvalidEvent[] = [];
  const authState = new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-webjs-auth-')));
  const host = new EngineHost({
    session: 'webjs-1',
    engine: 'WEBJS',
    factory: (context) => new WebjsEngine(context, async () => client),
    authState,
    metadata: { team: 'qa' },
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => events.push(event.envelope),
    onInvalidEvent: (invalid) => dropped.push(invalid),
    log: { ...silent, warn: (obj: object, msg?: string) => warnings.push({ obj, msg }) },
    ...(options.media ? { media: options.media } : {}),
  });
  const named = (name: EventName) => events.filter((event) => event.event === name);
  return {
    client,
    host,
    authState,
    events,
    dropped,
    warnings,
    named,
    payloads: (name: EventName) => named(name).map((event) => event.payload),
    statuses: () => named('session.status').map((event) => event.payload.status),
    /** Events other than the untranslated `engine.event`, by name, in order. */
    order: () => events.filter((event) => event.event !== 'engine.event').map((event) => event.event),
    /** Started, shown a QR code, scanned: WORKING. */
    async working() {
      await host.start();
      client.fire('qr', '2@qr-one');
      client.pair();
      expect(host.status).toBe('WORKING');
      events.length = 0;
    },
  };
}

/** Every envelope parses against the schema of its own event (spec 2.4, 6.2), and the host dropped none. */
export function expectValidEnvelopes(events: readonly EventEnvelope[], dropped: readonly InvalidEvent[] = []): void {
  expect(dropped, 'events the host dropped for not matching their schema').toEqual([]);
  for (const event of events) {
    const parsed = envelopeSchema(event.event).safeParse(event);
    expect(parsed.error?.issues ?? [], `${event.event}: ${JSON.stringify(event.payload).slice(0, 300)}`).toEqual([]);
  }
}

export const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));
