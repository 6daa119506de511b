import type { CustomHeader, FieldIssue, HmacConfig, ProxyConfig, SessionConfig, WebhookConfig } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/**
 * Secrets in a session config are write-only: whoever sets them knows them, nobody reads them
 * back. Every answer shows each one as this placeholder, in place, so the config keeps its shape;
 * a client that sends the config back unchanged sends the placeholder, which keeps the stored value.
 */
export const SECRET_PLACEHOLDER = '***';

/**
 * The config as answers show it: each webhook's `hmac.key` and `hmac.previous.key`, every `customHeaders[].value`, the
 * user and password of a webhook url and each value of its query (where receivers put tokens),
 * and the proxy's password become SECRET_PLACEHOLDER. Everything else is kept as it is.
 */
export function maskSessionConfig(config: SessionConfig): SessionConfig {
  if (!config.webhooks && !config.proxy?.password) return config;
  return {
    ...config,
    ...(config.webhooks ? { webhooks: config.webhooks.map(maskWebhook) } : {}),
    ...(config.proxy?.password ? { proxy: { ...config.proxy, password: SECRET_PLACEHOLDER } } : {}),
  };
}

function maskWebhook(hook: WebhookConfig): WebhookConfig {
  return {
    ...hook,
    url: maskUrl(hook.url),
    ...(hook.hmac ? { hmac: maskHmac(hook.hmac) } : {}),
    ...(hook.customHeaders ? { customHeaders: hook.customHeaders.map((h) => ({ ...h, value: SECRET_PLACEHOLDER })) } : {}),
  };
}

function maskHmac(hmac: HmacConfig): HmacConfig {
  const previous = hmac.previous && { ...hmac.previous, key: SECRET_PLACEHOLDER };
  return { ...hmac, key: SECRET_PLACEHOLDER, ...(previous ? { previous } : {}) };
}

/**
 * A url with its user info and query values masked. A url with neither comes back unchanged, so
 * an answer shows what was sent; one with secrets comes back in the WHATWG form of `URL`.
 */
export function maskUrl(url: string): string {
  const parsed = parseUrl(url);
  if (!parsed || (!parsed.username && !parsed.password && !parsed.search)) return url;
  if (parsed.username) parsed.username = SECRET_PLACEHOLDER;
  if (parsed.password) parsed.password = SECRET_PLACEHOLDER;
  if (parsed.search) parsed.search = queryParts(parsed.search).map(maskQueryPart).join('&');
  return parsed.href;
}

/**
 * The config a client sent with each placeholder replaced by the value `stored` holds at the
 * same place: a PUT that sends back what it read keeps the secrets, a new value replaces one.
 * A webhook's stored counterpart is the one whose url looks the same masked (the n-th such for
 * the n-th, as a session may have two webhooks of one url), so webhooks added or removed beside
 * it do not matter; a custom header's is the header of the same name (again the n-th of that name
 * for the n-th). The secrets of a webhook whose url changed are not kept: they would go to
 * another receiver than the one they were set for. A placeholder with nothing stored to keep is
 * refused (400 naming the field), so "***" never becomes a key.
 *
 * `path` names the sent config in error details (`body.config` for a REST request).
 */
export function restoreSessionConfigSecrets(sent: SessionConfig, stored: SessionConfig | undefined, path = 'body.config'): SessionConfig {
  if (!sent.webhooks && !sent.proxy) return sent;
  const issues: FieldIssue[] = [];
  const storedHooks = stored?.webhooks ?? [];
  const nth = occurrences<WebhookConfig>((hook) => maskUrl(hook.url));
  const webhooks = sent.webhooks?.map((hook, index) => restoreWebhook(hook, nth(hook, storedHooks), `${path}.webhooks[${index}]`, issues));
  const proxy = sent.proxy && restoreProxy(sent.proxy, stored?.proxy, `${path}.proxy`, issues);
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ');
    throw new ApiError(400, `invalid request: ${summary}`, issues);
  }
  return { ...sent, ...(webhooks ? { webhooks } : {}), ...(proxy ? { proxy } : {}) };
}

/**
 * The proxy's password is kept only for the same proxy server: it must not go to another one. A
 * credential sent as null (the peer takes it; its n8n node sends it so by default) is none.
 */
function restoreProxy(given: ProxyConfig, stored: ProxyConfig | undefined, path: string, issues: FieldIssue[]): ProxyConfig {
  const sent = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null)) as ProxyConfig;
  if (sent.password !== SECRET_PLACEHOLDER) return sent;
  if (stored?.password && stored.server === sent.server) return { ...sent, password: stored.password };
  issues.push({ path: `${path}.password`, reason: NOTHING_TO_KEEP });
  return sent;
}

const NOTHING_TO_KEEP = `is the placeholder "${SECRET_PLACEHOLDER}" of a stored secret, but this session stores none here to keep; send the value`;

function restoreWebhook(sent: WebhookConfig, stored: WebhookConfig | undefined, path: string, issues: FieldIssue[]): WebhookConfig {
  const url = restoreUrl(sent.url, stored?.url);
  if (url === null) issues.push({ path: `${path}.url`, reason: NOTHING_TO_KEEP });
  const hmac = sent.hmac && restoreHmac(sent.hmac, stored?.hmac ?? undefined, `${path}.hmac`, issues);
  const nth = occurrences<CustomHeader>((header) => header.name.toLowerCase());
  const customHeaders = sent.customHeaders?.map((header, index) => {
    const kept = nth(header, stored?.customHeaders ?? []);
    if (header.value !== SECRET_PLACEHOLDER) return header;
    if (kept) return { ...header, value: kept.value };
    issues.push({ path: `${path}.customHeaders[${index}].value`, reason: NOTHING_TO_KEEP });
    return header;
  });
  return {
    ...sent,
    url: url ?? sent.url,
    ...(hmac === undefined ? {} : { hmac }),
    ...(customHeaders === undefined ? {} : { customHeaders }),
  };
}

/**
 * The key and the previous key each keep the stored one at their place. A key kept for the
 * Standard Webhooks scheme must have been stored for it: one set for X-Webhook-Hmac is any
 * string, not a whsec_ secret.
 */
function restoreHmac(sent: HmacConfig, stored: HmacConfig | undefined, path: string, issues: FieldIssue[]): HmacConfig {
  let hmac = sent;
  if (sent.key === SECRET_PLACEHOLDER) {
    if (!stored) issues.push({ path: `${path}.key`, reason: NOTHING_TO_KEEP });
    else if (sent.scheme === 'standard-webhooks' && stored.scheme !== 'standard-webhooks') {
      issues.push({ path: `${path}.key`, reason: 'keeps a key stored for X-Webhook-Hmac, which is no whsec_ secret: send one, or "generate"' });
    } else hmac = { ...hmac, key: stored.key };
  }
  if (sent.previous?.key === SECRET_PLACEHOLDER) {
    if (stored?.previous) hmac = { ...hmac, previous: { ...sent.previous, key: stored.previous.key } };
    else issues.push({ path: `${path}.previous.key`, reason: NOTHING_TO_KEEP });
  }
  return hmac;
}

/**
 * Pairs items by a key in order: the n-th sent item of a key with the n-th stored item of that
 * key. Called once per sent item, in order.
 */
function occurrences<T>(keyOf: (item: T) => string): (sent: T, stored: readonly T[]) => T | undefined {
  const seen = new Map<string, number>();
  return (sent, stored) => {
    const key = keyOf(sent);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return stored.filter((item) => keyOf(item) === key)[n];
  };
}

/**
 * The sent url with each masked part (user, password, a query value) taken from the stored url,
 * which has the same masked form; null when a part is masked and there is no stored url.
 */
function restoreUrl(sent: string, stored: string | undefined): string | null {
  if (maskedParts(sent) === 0) return sent;
  const parsed = parseUrl(sent);
  const original = stored === undefined ? null : parseUrl(stored);
  if (!parsed || !original) return null;
  if (parsed.username === SECRET_PLACEHOLDER) parsed.username = original.username;
  if (parsed.password === SECRET_PLACEHOLDER) parsed.password = original.password;
  if (parsed.search) {
    const kept = queryParts(original.search);
    parsed.search = queryParts(parsed.search)
      .map((part, index) => (isMaskedQueryPart(part) ? (kept[index] ?? part) : part))
      .join('&');
  }
  return parsed.href;
}

function maskedParts(url: string): number {
  const parsed = parseUrl(url);
  if (!parsed) return 0;
  return (
    Number(parsed.username === SECRET_PLACEHOLDER) +
    Number(parsed.password === SECRET_PLACEHOLDER) +
    queryParts(parsed.search).filter(isMaskedQueryPart).length
  );
}

/** `?a=1&b` as `['a=1', 'b']`. */
function queryParts(search: string): string[] {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part !== '');
}

/** `name=value` keeps its name; a bare part (`?token`) may be the token itself, so all of it is masked. */
function maskQueryPart(part: string): string {
  const equals = part.indexOf('=');
  return equals < 0 ? SECRET_PLACEHOLDER : `${part.slice(0, equals)}=${SECRET_PLACEHOLDER}`;
}

function isMaskedQueryPart(part: string): boolean {
  return part === SECRET_PLACEHOLDER || part.endsWith(`=${SECRET_PLACEHOLDER}`);
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
