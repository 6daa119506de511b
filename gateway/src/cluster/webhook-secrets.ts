import { randomUUID } from 'node:crypto';
import {
  type HmacConfig,
  type ResourceCustomHeader,
  type ResourceHmacConfig,
  type ResourceProxyConfig,
  type ResourceSessionConfig,
  type ProxyConfig,
  type ResourceWebhookConfig,
  type SecretKeySelector,
  type SessionConfig,
  type WebhookConfig,
  webhookSecretName,
} from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';
import { maskSessionConfig, maskUrl, restoreSessionConfigSecrets } from '../sessions/config-secrets.js';
import { webhookTargets } from './webhook-targets.js';

/**
 * Cluster mode keeps webhook secrets (each `hmac.key` and custom header value) and the proxy's
 * password in Secrets, and the MessagingSession names them (`keyFrom` / `valueFrom` /
 * `passwordFrom` `.secretKeyRef`). These are the conversions between the API's config, where a
 * secret is a value, and the resource's.
 */

/** Where one secret of a resource webhook is: a plain value (resources written before) or a Secret key. */
type SecretSource = { readonly value: string } | { readonly ref: SecretKeySelector };

const sourceOf = (plain: string | undefined, from: { secretKeyRef: SecretKeySelector } | undefined): SecretSource =>
  from ? { ref: from.secretKeyRef } : { value: plain ?? '' };

/** The resource config as answers show it: every secret masked, wherever it is kept. */
export function apiConfigOf(config: ResourceSessionConfig | undefined): SessionConfig {
  return maskSessionConfig(withTokens(config ?? {}).config);
}

/**
 * The resource config of what a client sent (`sent`, where "***" keeps the secret `stored` has
 * at the same place), and the data of the session's own Secret. Every value the client sent
 * goes into that Secret under a key named after its webhook (and header), and the config refers
 * to it; a kept secret stays where it is: a Secret a `kubectl` user named stays named; a plain
 * value of an older resource moves into the Secret (docs/operations.md, "Webhook secrets"). A
 * url with user info or a query goes into the Secret whole, and `url` keeps its masked form.
 * `read` reads a stored secret as it is now (undefined: it cannot be), for the values that move
 * with a rewrite and for the parts of a stored url that "***" keeps.
 */
export async function storeSecrets(
  resourceName: string,
  sent: SessionConfig,
  stored: ResourceSessionConfig | undefined,
  read: (ref: SecretKeySelector) => Promise<string | undefined>,
): Promise<{ config: ResourceSessionConfig; data: Record<string, string> }> {
  const storedHooks = stored?.webhooks ?? [];
  // A url whose Secret cannot be read is no url: a sent url that keeps parts of it is refused.
  const storedUrls = await Promise.all(storedHooks.map(async (hook) => (hook.urlFrom ? ((await read(hook.urlFrom.secretKeyRef)) ?? '') : hook.url)));
  const tokens = withTokens(stored ?? {}, storedUrls);
  const restored = restoreSessionConfigSecrets(sent, tokens.config);
  if (!restored.webhooks && !restored.proxy?.password) return { config: restored, data: {} };
  const own = webhookSecretName(resourceName);
  const data: Record<string, string> = {};
  /** Urls a user's Secret holds: kept there when sent back unchanged. */
  const userUrls = new Map(
    storedHooks.flatMap((hook, i) => (hook.urlFrom && hook.urlFrom.secretKeyRef.name !== own ? [[storedUrls[i]!, hook.urlFrom]] : [])),
  );
  /** A secret as the resource holds it: a reference to `key` of the session's Secret, or the user's Secret kept. */
  const place = async (secret: string, key: string, path: string): Promise<{ secretKeyRef: SecretKeySelector }> => {
    const source = tokens.sources.get(secret) ?? { value: secret };
    if ('ref' in source && source.ref.name !== own) return { secretKeyRef: source.ref };
    const value = 'value' in source ? source.value : await read(source.ref);
    if (value === undefined) {
      throw new ApiError(409, `the stored secret of ${path} is gone (Secret '${own}' lost it): send its value`, [
        { path, reason: 'its stored value is gone; send the value' },
      ]);
    }
    data[key] = value;
    return { secretKeyRef: { name: own, key } };
  };
  // The engine pod reads the password as an env var from where this puts it (the operator's pod spec).
  let proxy: ResourceProxyConfig | undefined = restored.proxy;
  if (restored.proxy?.password) {
    const { password, ...rest } = restored.proxy;
    proxy = { ...rest, passwordFrom: await place(password, 'proxy-password', 'body.config.proxy.password') };
  }
  const withProxy = proxy ? { proxy } : {};
  if (!restored.webhooks) return { config: { ...restored, ...withProxy }, data };
  // Named as delivery names the webhook, after the url the resource shows: a key name made from a
  // url's credentials would be a hash of them, readable by whoever reads the resource.
  const ids = webhookTargets(
    restored.webhooks.map((hook) => ({ ...hook, url: maskUrl(hook.url) })),
    null,
  ).map((target) => target.id);
  const webhooks = await Promise.all(
    restored.webhooks.map(async (hook, index): Promise<ResourceWebhookConfig> => {
      const path = `body.config.webhooks[${index}]`;
      const id = ids[index]!;
      const hmac = hook.hmac && (await placeHmac(hook.hmac, id, `${path}.hmac`, place));
      const customHeaders =
        hook.customHeaders &&
        (await Promise.all(
          hook.customHeaders.map(async ({ name, value }, n) => ({
            name,
            valueFrom: await place(value, `${id}-header-${n}`, `${path}.customHeaders[${n}].value`),
          })),
        ));
      const masked = maskUrl(hook.url);
      if (masked === hook.url) return { ...hook, hmac, customHeaders };
      const urlFrom = userUrls.get(hook.url) ?? (await place(hook.url, `${id}-url`, `${path}.url`));
      return { ...hook, url: masked, urlFrom, hmac, customHeaders };
    }),
  );
  return { config: { ...restored, webhooks, ...withProxy }, data };
}

/** The HMAC config as the resource holds it: the key, and a previous key, each placed in a Secret. */
async function placeHmac(
  hmac: HmacConfig,
  id: string,
  path: string,
  place: (secret: string, key: string, path: string) => Promise<{ secretKeyRef: SecretKeySelector }>,
): Promise<ResourceHmacConfig> {
  const { key, previous, ...rest } = hmac;
  const keyFrom = await place(key, `${id}-hmac`, `${path}.key`);
  if (!previous) return { ...rest, keyFrom, ...(previous === null ? { previous } : {}) };
  const previousFrom = await place(previous.key, `${id}-hmac-previous`, `${path}.previous.key`);
  return { ...rest, keyFrom, previous: { keyFrom: previousFrom, until: previous.until } };
}

/**
 * The webhook as it is sent: each secret read where it is kept. `value` rejects for a Secret or
 * key that cannot be read, and so does this: the delivery attempt fails.
 */
export async function resolveWebhook(hook: ResourceWebhookConfig, value: (ref: SecretKeySelector) => Promise<string>): Promise<WebhookConfig> {
  const plain = !hook.hmac?.keyFrom && !hook.hmac?.previous?.keyFrom;
  if (!hook.urlFrom && plain && !hook.customHeaders?.some((header) => header.valueFrom)) return hook as WebhookConfig;
  const read = async (source: SecretSource) => ('ref' in source ? value(source.ref) : source.value);
  const { urlFrom, ...rest } = hook;
  return {
    ...rest,
    url: urlFrom ? await value(urlFrom.secretKeyRef) : hook.url,
    hmac: hook.hmac && (await resolveHmac(hook.hmac, read)),
    customHeaders:
      hook.customHeaders &&
      (await Promise.all(hook.customHeaders.map(async (h) => ({ name: h.name, value: await read(sourceOf(h.value, h.valueFrom)) })))),
  };
}

async function resolveHmac(hmac: ResourceHmacConfig, read: (source: SecretSource) => Promise<string>): Promise<HmacConfig> {
  const { keyFrom: _, key, previous, ...rest } = hmac;
  const resolved: HmacConfig = { ...rest, key: await read(sourceOf(key, hmac.keyFrom)) };
  // A previous key past its date is never used again: an attempt does not read (or fail on) its Secret.
  if (!previous || Date.parse(previous.until) <= Date.now()) return resolved;
  return { ...resolved, previous: { key: await read(sourceOf(previous.key, previous.keyFrom)), until: previous.until } };
}

/** The Secrets a config names: what a delivery of it reads, and the engine pod (the proxy's password). */
export function secretNamesOf(config: ResourceSessionConfig | undefined): Set<string> {
  const names = new Set<string>();
  if (config?.proxy?.passwordFrom) names.add(config.proxy.passwordFrom.secretKeyRef.name);
  for (const hook of config?.webhooks ?? []) {
    if (hook.urlFrom) names.add(hook.urlFrom.secretKeyRef.name);
    if (hook.hmac?.keyFrom) names.add(hook.hmac.keyFrom.secretKeyRef.name);
    if (hook.hmac?.previous?.keyFrom) names.add(hook.hmac.previous.keyFrom.secretKeyRef.name);
    for (const header of hook.customHeaders ?? []) if (header.valueFrom) names.add(header.valueFrom.secretKeyRef.name);
  }
  return names;
}

/** Whether a config holds a secret in plain text (a resource written before secrets went into Secrets). */
export function hasPlainSecrets(config: ResourceSessionConfig | undefined): boolean {
  if (config?.proxy?.password != null) return true;
  return (config?.webhooks ?? []).some(
    (hook) =>
      (!hook.urlFrom && maskUrl(hook.url) !== hook.url) ||
      hook.hmac?.key !== undefined ||
      hook.hmac?.previous?.key !== undefined ||
      (hook.customHeaders ?? []).some((header) => header.value !== undefined),
  );
}

/**
 * The config in the API's shape with each secret replaced by a random token, and what each token
 * stands for: masking then hides them all, and restoring a client's "***" brings back the token,
 * which says where the kept secret is without reading it. A url is masked and restored by its
 * parts, so `urls` gives each webhook's real url for a restore (the resource holds it masked).
 */
function withTokens(config: ResourceSessionConfig, urls: readonly string[] = []): { config: SessionConfig; sources: Map<string, SecretSource> } {
  const sources = new Map<string, SecretSource>();
  const prefix = randomUUID();
  const token = (source: SecretSource) => {
    const id = `${prefix}.${sources.size}`;
    sources.set(id, source);
    return id;
  };
  const hmacOf = ({ key, keyFrom, previous, ...rest }: ResourceHmacConfig): HmacConfig => ({
    ...rest,
    key: token(sourceOf(key, keyFrom)),
    ...(previous ? { previous: { key: token(sourceOf(previous.key, previous.keyFrom)), until: previous.until } } : {}),
    ...(previous === null ? { previous } : {}),
  });
  const headerOf = (header: ResourceCustomHeader) => ({ name: header.name, value: token(sourceOf(header.value, header.valueFrom)) });
  const proxy = config.proxy && proxyOf(config.proxy, token);
  if (!config.webhooks) return { config: { ...config, ...(proxy ? { proxy } : {}) } as SessionConfig, sources };
  const webhooks = config.webhooks.map(({ urlFrom: _, ...hook }, index) => ({
    ...hook,
    url: urls[index] ?? hook.url,
    hmac: hook.hmac && hmacOf(hook.hmac),
    customHeaders: hook.customHeaders && hook.customHeaders.map(headerOf),
  }));
  return { config: { ...config, webhooks, ...(proxy ? { proxy } : {}) }, sources };
}

/** The proxy in the API's shape: its password (when it has one) a token. */
function proxyOf({ passwordFrom, password, ...proxy }: ResourceProxyConfig, token: (source: SecretSource) => string): ProxyConfig {
  return password == null && passwordFrom === undefined ? proxy : { ...proxy, password: token(sourceOf(password ?? undefined, passwordFrom)) };
}
