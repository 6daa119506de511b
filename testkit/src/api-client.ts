interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read arbitrary JSON answers.
  readonly body: any;
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
