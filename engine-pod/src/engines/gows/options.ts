import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientVersionFromEnv, clientVersionVariable, DEFAULT_SILENCE_TIMEOUT_MS, silenceTimeoutFromEnv } from '@switchboard/protocol';

export interface GowsOptions {
  /** The engine's command line: the `switchboard-gows` binary and `stdio` (tests run a stub instead). */
  readonly command: readonly [string, ...string[]];
  /** The WhatsApp websocket; unset: the engine's own default. Tests point it at a fake server. */
  readonly wsUrl?: string;
  /** Hex of the 32-byte root key the server's certificate chain is checked against (tests only). */
  readonly certRootPubkey?: string;
  /** WhatsApp's media host; unset: the engine's own. Tests point it at a fake. */
  readonly mediaHost?: string;
  /** A PEM file of a certificate the engine trusts for media servers besides the system's roots (tests: a fake media server's). */
  readonly mediaCa?: string;
  /** How long stop and logout wait for the process to exit after stdin closes, before SIGKILL. */
  readonly exitTimeoutMs: number;
  /** The WhatsApp Web version sessions present unless their config sets one; unset: whatsmeow's. */
  readonly clientVersion?: string;
  /** The longest stdout line read before the child is killed (engine-process.ts's default unless a test sets one). */
  readonly maxLineLength?: number;
  /** The bound within which a silent connection is reconnected (`SWITCHBOARD_SILENCE_TIMEOUT_MS`, given to the child); unset: the child's default, the same 60 s. */
  readonly silenceTimeoutMs?: number;
}

/** Where `make build` puts the binary (engines/gows/bin/), from this file in src/ or dist/ alike. */
export const DEFAULT_GOWS_BIN = fileURLToPath(new URL('../../../../engines/gows/bin/switchboard-gows', import.meta.url));

export const BIN_VARIABLE = 'SWITCHBOARD_GOWS_BIN';
/** The child reads it too (engines/gows/internal/engine/versions.go): the same name in both modes. */
export const CLIENT_VERSION_VARIABLE = clientVersionVariable('GOWS');

/**
 * The GOWS options whoever builds engines reads from the environment: `SWITCHBOARD_GOWS_BIN`
 * (default: where `make build` puts it), `SWITCHBOARD_GOWS_WS_URL` (a `ws:` or `wss:` URL),
 * `SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY` (64 hex digits), `SWITCHBOARD_GOWS_MEDIA_HOST` and
 * `SWITCHBOARD_GOWS_MEDIA_CA` (a PEM file the engine reads; it says so in its log) and
 * `SWITCHBOARD_GOWS_CLIENT_VERSION` (a WhatsApp Web version, "2.3000.1023456789") and
 * `SWITCHBOARD_SILENCE_TIMEOUT_MS` (every socket engine's). A wrong value throws, naming the
 * variable, before anything starts.
 */
export function gowsOptionsFromEnv(env: NodeJS.ProcessEnv): GowsOptions {
  const wsUrl = env.SWITCHBOARD_GOWS_WS_URL;
  const certRootPubkey = env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY;
  const mediaHost = env.SWITCHBOARD_GOWS_MEDIA_HOST;
  const mediaCa = env.SWITCHBOARD_GOWS_MEDIA_CA;
  const clientVersion = clientVersionFromEnv(env, CLIENT_VERSION_VARIABLE);
  const silenceTimeoutMs = silenceTimeoutFromEnv(env);
  if (wsUrl) checkWsUrl(wsUrl);
  if (certRootPubkey && !/^[0-9a-fA-F]{64}$/.test(certRootPubkey)) {
    throw new Error(`SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: must be 64 hex digits (a 32-byte key), got ${certRootPubkey.length} characters`);
  }
  return {
    command: [env[BIN_VARIABLE] || DEFAULT_GOWS_BIN, 'stdio'],
    exitTimeoutMs: 10_000,
    ...(wsUrl ? { wsUrl } : {}),
    ...(certRootPubkey ? { certRootPubkey } : {}),
    ...(mediaHost ? { mediaHost } : {}),
    ...(mediaCa ? { mediaCa } : {}),
    ...(clientVersion ? { clientVersion } : {}),
    ...(silenceTimeoutMs === DEFAULT_SILENCE_TIMEOUT_MS ? {} : { silenceTimeoutMs }),
  };
}

function checkWsUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SWITCHBOARD_GOWS_WS_URL: not a URL: ${raw}`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`SWITCHBOARD_GOWS_WS_URL: must be a ws: or wss: URL, got ${url.protocol}`);
  }
}

/** Why GOWS sessions could not run from these options (no executable binary), or null. */
export function gowsBinaryProblem(options: GowsOptions): string | null {
  const [file] = options.command;
  try {
    accessSync(file, constants.X_OK);
    return null;
  } catch {
    return `no GOWS engine binary at ${file}: make build builds it (engines/gows), or set ${BIN_VARIABLE} to where it is`;
  }
}
