import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';

/**
 * The memory measurement and the fake WhatsApp Web server are imported from their TypeScript
 * source by relative path, outside this package's rootDir (tsc does not compile them here; each
 * benchmark declares the slice of them it relies on). measure.ts needs only Node's type
 * stripping. The fake is written for vitest: its relative imports name `.js` files that exist as
 * `.ts`, and it (and the engine source it shares, the poll vote cipher in
 * src/engines/noweb/polls.ts) uses parameter properties, which type stripping refuses. The hooks
 * below serve engine-pod/test/ and engine-pod/src/ only: a `.js` that is not there is looked for
 * as `.ts`, and `.ts` files there are loaded with Node's type transform.
 */
const ENGINE_POD_TEST = new URL('../../engine-pod/test/', import.meta.url);
const ENGINE_POD_SOURCES = [ENGINE_POD_TEST, new URL('../../engine-pod/src/', import.meta.url)];
export const MEASURE = new URL('noweb/memory/measure.ts', ENGINE_POD_TEST);
export const FAKE_WA = new URL('fake-wa/index.ts', ENGINE_POD_TEST);

/** The part of the fake WhatsApp Web server (engine-pod/test/fake-wa) the benchmarks use. */
export interface FakePhone {
  text(from: string, body: string): string;
}
export interface FakeWaServer {
  readonly url: string;
  /** The root key of its certificate chain, hex: what whatsmeow (GOWS) is told to trust. */
  readonly certRootPublicKey: string;
  scanQr(qr: string): Promise<FakePhone>;
  /** Declares a contact's LID (whatsmeow sends to LIDs it has looked up). */
  contact(phone: string, lid: string): void;
  close(): Promise<void>;
}
/** `signal`: contacts answer with real signal sessions, which whatsmeow (GOWS) needs to send to them. */
interface FakeWaOptions {
  readonly signal?: boolean;
}
interface FakeWaModule {
  FakeWaServer: { start(options?: FakeWaOptions): Promise<FakeWaServer> };
}

export function loadEnginePodSources(): void {
  const inSources = (url: string | undefined) => ENGINE_POD_SOURCES.some((dir) => url?.startsWith(dir.href) ?? false);
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        const relative = specifier.startsWith('./') || specifier.startsWith('../');
        if (!relative || !specifier.endsWith('.js') || !inSources(context.parentURL)) throw error;
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
    },
    load(url, context, nextLoad) {
      if (!inSources(url) || !url.endsWith('.ts')) return nextLoad(url, context);
      const source = stripTypeScriptTypes(readFileSync(new URL(url), 'utf8'), { mode: 'transform', sourceUrl: url });
      return { format: 'module', source, shortCircuit: true };
    },
  });
}

let hooked = false;

/** The fake WhatsApp Web server, started on loopback. */
export async function startFakeWa(options: FakeWaOptions = {}): Promise<FakeWaServer> {
  if (!hooked) loadEnginePodSources();
  hooked = true;
  const { FakeWaServer } = (await import(FAKE_WA.href)) as FakeWaModule;
  return FakeWaServer.start(options);
}
