import { z } from 'zod';
import { ProxyConfig } from './engine-settings.js';
import { SessionConfig } from './session.js';
import { CustomHeader, HmacConfig, PreviousHmacKey, RetriesConfig, WebhookEventFilter, WebhookTimeoutSeconds, WebhookUrl } from './webhook.js';

/**
 * Cluster mode's webhooks as a MessagingSession holds them. A secret (the HMAC key, a custom
 * header's value) is a key of a Secret in the resource's namespace, named the way a container's
 * env var names one (`valueFrom.secretKeyRef`): `hmac.keyFrom.secretKeyRef` (and
 * `hmac.previous.keyFrom.secretKeyRef` while a Standard Webhooks key is rotated),
 * `customHeaders[].valueFrom.secretKeyRef`, and `urlFrom.secretKeyRef` for a url with user info
 * or a query; the same for the proxy's password (`proxy.passwordFrom.secretKeyRef`). The plain
 * `hmac.key`, `customHeaders[].value`, credentialed `url` and `proxy.password` of resources
 * written before are still read (docs/operations.md, "Webhook secrets").
 */

/** RFC 1123 subdomain: what a Secret's name may be. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** What a key of a Secret's `data` may be. */
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

export const SecretKeySelector = z
  .object({
    name: z.string().max(253, { abort: true }).regex(SECRET_NAME, { message: 'must be a Secret name (lower case RFC 1123 subdomain)' }),
    key: z.string().max(253, { abort: true }).regex(SECRET_KEY, { message: 'must be a Secret key: letters, digits, "-", "_" or "."' }),
  })
  .meta({ id: 'SecretKeySelector', description: 'A key of a Secret in the namespace of the MessagingSession' });
export type SecretKeySelector = z.infer<typeof SecretKeySelector>;

export const SecretSource = z
  .object({ secretKeyRef: SecretKeySelector })
  .meta({ id: 'SecretSource', description: "Where a secret value is kept, as in a container env var's valueFrom" });
export type SecretSource = z.infer<typeof SecretSource>;

/** Exactly one of the plain field and its `…From`; the API server checks it too (CEL below). */
function oneOf<T extends z.ZodObject>(schema: T, plain: string, from: string) {
  const rule = `has(self.${plain}) != has(self.${from})`;
  const message = `set exactly one of ${plain} and ${from}`;
  return schema
    .refine((value) => (value[plain] === undefined) !== (value[from] === undefined), { message, path: [from] })
    .meta({ 'x-kubernetes-validations': [{ rule, message }] });
}

/**
 * At most one of the plain field and its `…From`: for a secret that may be left out (a proxy
 * without authentication). The same refinement and CEL rule style as oneOf.
 */
function atMostOne<T extends z.ZodObject>(schema: T, plain: string, from: string) {
  const rule = `!(has(self.${plain}) && has(self.${from}))`;
  const message = `set at most one of ${plain} and ${from}`;
  return schema
    .refine((value) => value[plain] === undefined || value[from] === undefined, { message, path: [from] })
    .meta({ 'x-kubernetes-validations': [{ rule, message }] });
}

/** The key being rotated out (Standard Webhooks), kept in a Secret as the current one is. */
export const ResourcePreviousHmacKey = oneOf(
  z.object({
    key: PreviousHmacKey.shape.key.optional().meta({ description: 'Deprecated: readable by whoever reads the resource; use keyFrom' }),
    keyFrom: SecretSource.optional().meta({ description: 'The secret being replaced (whsec_ form)' }),
    until: PreviousHmacKey.shape.until,
  }),
  'key',
  'keyFrom',
).meta({ id: 'ResourcePreviousHmacKey' });
export type ResourcePreviousHmacKey = z.infer<typeof ResourcePreviousHmacKey>;

export const ResourceHmacConfig = oneOf(
  z.object({
    key: HmacConfig.shape.key.optional().meta({ description: 'Deprecated: readable by whoever reads the resource; use keyFrom' }),
    keyFrom: SecretSource.optional().meta({ description: 'The shared secret (whsec_ form for standard-webhooks)' }),
    scheme: HmacConfig.shape.scheme,
    previous: ResourcePreviousHmacKey.nullish().meta({
      description: 'standard-webhooks only: the key being rotated out, signed with too until its date',
    }),
  }),
  'key',
  'keyFrom',
).meta({ id: 'ResourceHmacConfiguration' });
export type ResourceHmacConfig = z.infer<typeof ResourceHmacConfig>;

export const ResourceCustomHeader = oneOf(
  z.object({
    name: CustomHeader.shape.name,
    value: CustomHeader.shape.value.optional().meta({ description: 'A value that is no secret' }),
    valueFrom: SecretSource.optional().meta({ description: 'A secret value (a token)' }),
  }),
  'value',
  'valueFrom',
).meta({ id: 'ResourceCustomHeader' });
export type ResourceCustomHeader = z.infer<typeof ResourceCustomHeader>;

export const ResourceWebhookConfig = z
  .object({
    url: WebhookUrl.meta({
      description: 'The receiver; with urlFrom, the url as answers show it (user, password and query values as "***"), which names the webhook',
    }),
    urlFrom: SecretSource.optional().meta({ description: 'The url itself, when it carries credentials or a query (a token)' }),
    events: z.array(WebhookEventFilter).min(1).meta({ description: 'Event names to deliver; "*" means all' }),
    hmac: ResourceHmacConfig.nullish(),
    retries: RetriesConfig.nullish(),
    customHeaders: z.array(ResourceCustomHeader).max(50).nullish(),
    timeoutSeconds: WebhookTimeoutSeconds.nullish(),
  })
  .meta({ id: 'ResourceWebhookConfig' });
export type ResourceWebhookConfig = z.infer<typeof ResourceWebhookConfig>;

/** The proxy as a MessagingSession holds it: its password a key of a Secret, which the engine pod reads as an env var. */
export const ResourceProxyConfig = atMostOne(
  z.object({
    server: ProxyConfig.shape.server,
    username: ProxyConfig.shape.username,
    password: ProxyConfig.shape.password.meta({
      description: 'Deprecated: readable by whoever reads the resource or its engine pod; use passwordFrom',
    }),
    passwordFrom: SecretSource.optional().meta({ description: "The proxy's password" }),
  }),
  'password',
  'passwordFrom',
).meta({ id: 'ResourceProxyConfig' });
export type ResourceProxyConfig = z.infer<typeof ResourceProxyConfig>;

/** The API's session config with the webhooks and proxy above: every other field as the API takes it. */
export const ResourceSessionConfig = SessionConfig.extend({
  webhooks: z.array(ResourceWebhookConfig).max(20).optional(),
  proxy: ResourceProxyConfig.optional(),
}).meta({ id: 'ResourceSessionConfig' });
export type ResourceSessionConfig = z.infer<typeof ResourceSessionConfig>;
