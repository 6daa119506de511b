import { OutboundPolicy } from '@switchboard/kube/pod';
import { type Logger, pino } from 'pino';
import { clientVersionFromEnv, clientVersionVariable, DEFAULT_SILENCE_TIMEOUT_MS, silenceTimeoutFromEnv } from '@switchboard/protocol';

export interface NowebOptions {
  /** The WhatsApp Web websocket; tests point it at a fake server. */
  readonly waUrl: string;
  /** Baileys announces the account as online on connect when true; the phone keeps notifying when false. */
  readonly markOnlineOnConnect: boolean;
  /** Baileys' own logger: silent unless a caller passes one (a child of its own, for example). */
  readonly logger: Logger;
  /** Wait before reconnect attempt n (1-based) after the connection dropped. */
  readonly reconnectDelayMs: (attempt: number) => number;
  /**
   * Connection attempts in a row that may fail (no QR code, no open connection) before the session
   * gives up as FAILED, instead of STARTING for good. With the default backoff, 10 take about 2.5 min.
   */
  readonly connectAttempts: number;
  /** How long each QR code lives; unset: the library's 60 s for the first, 20 s for the next. */
  readonly qrTimeoutMs?: number;
  /** WhatsApp's media host, downloaded from over https; unset: the library's. Tests point it at a fake. */
  readonly mediaHost?: string;
  /** The outbound address policy a session's `config.proxy` is held to (the messaging service is not). */
  readonly outbound: OutboundPolicy;
  /** The WhatsApp Web version sessions present unless their config sets one; unset: Baileys'. */
  readonly clientVersion?: string;
  /** The bound within which a silent connection is noticed and reconnected (`SWITCHBOARD_SILENCE_TIMEOUT_MS`, silence-watch.ts). */
  readonly silenceTimeoutMs: number;
}

const DEFAULT_WA_URL = 'wss://web.whatsapp.com/ws/chat';

export const DEFAULT_NOWEB_OPTIONS: NowebOptions = {
  waUrl: DEFAULT_WA_URL,
  markOnlineOnConnect: false,
  logger: pino({ level: 'silent' }),
  reconnectDelayMs: (attempt) => Math.min(1_000 * 2 ** (attempt - 1), 30_000),
  connectAttempts: 10,
  outbound: new OutboundPolicy(),
  silenceTimeoutMs: DEFAULT_SILENCE_TIMEOUT_MS,
};

const ATTEMPTS_VARIABLE = 'SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS';
export const CLIENT_VERSION_VARIABLE = clientVersionVariable('NOWEB');
const MAX_ATTEMPTS = 1_000;

/**
 * The NOWEB options whoever builds engines reads from the environment: `SWITCHBOARD_NOWEB_WS_URL`
 * (a `ws:` or `wss:` URL), `SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS` (1 to 1000) and
 * `SWITCHBOARD_NOWEB_CLIENT_VERSION` (a WhatsApp Web version, "2.3000.1023456789"), and
 * `SWITCHBOARD_SILENCE_TIMEOUT_MS` (every socket engine's). A wrong value throws, naming the
 * variable, before anything starts.
 */
export function nowebOptionsFromEnv(env: NodeJS.ProcessEnv): NowebOptions {
  const url = env.SWITCHBOARD_NOWEB_WS_URL;
  const attempts = env[ATTEMPTS_VARIABLE];
  const clientVersion = clientVersionFromEnv(env, CLIENT_VERSION_VARIABLE);
  const silenceTimeoutMs = silenceTimeoutFromEnv(env);
  if (!url && !attempts && !clientVersion && silenceTimeoutMs === DEFAULT_SILENCE_TIMEOUT_MS) return DEFAULT_NOWEB_OPTIONS;
  return {
    ...DEFAULT_NOWEB_OPTIONS,
    silenceTimeoutMs,
    ...(url ? { waUrl: wsUrl(url) } : {}),
    ...(attempts ? { connectAttempts: connectAttempts(attempts) } : {}),
    ...(clientVersion ? { clientVersion } : {}),
  };
}

function connectAttempts(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > MAX_ATTEMPTS) {
    throw new Error(`${ATTEMPTS_VARIABLE}: must be a whole number from 1 to ${MAX_ATTEMPTS}, got ${raw}`);
  }
  return value;
}

function wsUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SWITCHBOARD_NOWEB_WS_URL: not a URL: ${raw}`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`SWITCHBOARD_NOWEB_WS_URL: must be a ws: or wss: URL, got ${url.protocol}`);
  }
  return raw;
}
