/**
 * JSON the system under test sent: an API answer, a webhook's body, a websocket frame. Tests read
 * it as the wire gave it and check it with expect(); typing it from the protocol's schemas would
 * assume the very shape a test is there to check. The test tree's one declared `any` (see
 * eslint.config.js for the rules tests relax because of it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the reason is above
export type WireJson = any;

interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: WireJson;
}

export type ApiCall = (method: string, path: string, body?: unknown, key?: string | null) => Promise<ApiResponse>;

/**
 * A real HTTP client for the gateway's JSON API: sends `X-Api-Key` (the default key, another
 * one, or none with `null`) and parses JSON answers. A string body is sent as it is, so tests
 * can send malformed JSON.
 */
export function apiClient(baseUrl: string, defaultKey: string): ApiCall {
  return async (method, path, body, key = defaultKey) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers['x-api-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(baseUrl + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('application/json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed };
  };
}
