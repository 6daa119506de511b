import type { ApiKeySelfDTO } from '@switchboard/protocol';

/** sessionStorage only: gone with the tab, never in a URL or a cookie. */
const KEY_STORAGE = 'switchboard.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY_STORAGE);
  else sessionStorage.setItem(KEY_STORAGE, key);
}

/** An answer other than 2xx, with the API's own message (ErrorBody.message). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The public API, with the key the person entered; nothing else is ever called. */
export class Api {
  constructor(readonly key: string) {}

  async call<T>(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': this.key, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body), credentials: 'omit' });
    const text = await response.text();
    const parsed: unknown = text === '' ? null : safeJson(text);
    if (!response.ok) {
      const message = (parsed as { message?: unknown } | null)?.message;
      throw new ApiFailure(response.status, `${response.status}: ${typeof message === 'string' ? message : text || response.statusText}`);
    }
    return parsed as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body ?? {});
  }

  me(): Promise<ApiKeySelfDTO> {
    return this.get<ApiKeySelfDTO>('/api/keys/me');
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { message: text };
  }
}

export const enc = encodeURIComponent;

/**
 * The key goes to /ws as a subprotocol (`x-api-key.b64.<base64url>`), beside `switchboard`, which
 * the gateway picks: a browser cannot set headers on a websocket, and the query string would put
 * the key in a URL.
 */
export function openEvents(key: string, session: string | null): WebSocket {
  const url = new URL(`/ws?session=${enc(session ?? '*')}&events=*`, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const bytes = new TextEncoder().encode(key);
  const b64 = btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
  return new WebSocket(url, ['switchboard', `x-api-key.b64.${b64}`]);
}
