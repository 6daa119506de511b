import { type Logger, pino } from 'pino';

export interface NowebOptions {
  /** The WhatsApp Web websocket; tests point it at a fake server. */
  readonly waUrl: string;
  /** Baileys announces the account as online on connect when true; the phone keeps notifying when false. */
  readonly markOnlineOnConnect: boolean;
  /** Baileys' own logger: silent unless a caller passes one (a child of its own, for example). */
  readonly logger: Logger;
  /** Wait before reconnect attempt n (1-based) after the connection dropped. */
  readonly reconnectDelayMs: (attempt: number) => number;
  /** How long each QR code lives; unset: the library's 60 s for the first, 20 s for the next. */
  readonly qrTimeoutMs?: number;
  /** WhatsApp's media host, downloaded from over https; unset: the library's. Tests point it at a fake. */
  readonly mediaHost?: string;
}

export const DEFAULT_WA_URL = 'wss://web.whatsapp.com/ws/chat';

export const DEFAULT_NOWEB_OPTIONS: NowebOptions = {
  waUrl: DEFAULT_WA_URL,
  markOnlineOnConnect: false,
  logger: pino({ level: 'silent' }),
  reconnectDelayMs: (attempt) => Math.min(1_000 * 2 ** (attempt - 1), 30_000),
};

/**
 * The NOWEB options whoever builds engines reads from the environment: `SWITCHBOARD_NOWEB_WS_URL`
 * (a `ws:` or `wss:` URL). A wrong value throws, naming the variable, before anything starts.
 */
export function nowebOptionsFromEnv(env: NodeJS.ProcessEnv): NowebOptions {
  const raw = env.SWITCHBOARD_NOWEB_WS_URL;
  if (raw === undefined || raw === '') return DEFAULT_NOWEB_OPTIONS;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SWITCHBOARD_NOWEB_WS_URL: not a URL: ${raw}`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`SWITCHBOARD_NOWEB_WS_URL: must be a ws: or wss: URL, got ${url.protocol}`);
  }
  return { ...DEFAULT_NOWEB_OPTIONS, waUrl: raw };
}
