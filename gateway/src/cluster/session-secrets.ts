import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { API_VERSION, httpStatusOf, type MessagingSession } from '@switchboard/kube';
import { LABELS, MESSAGING_SESSION, type SecretKeySelector, webhookSecretName } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

export interface SessionSecretsOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** How long a Secret read for a delivery is used before it is read again (a rotated user Secret). */
  readonly ttlMs?: number;
}

/** Why a webhook's secret cannot be read: the delivery attempt fails with this message. */
export class SecretUnavailable extends Error {}

/** The component label of the Secrets the gateway makes: it replaces no Secret without it. */
const COMPONENT = 'webhook-secrets';

/** A Secret that is there but does not let webhooks read it. */
const NOT_FOR_WEBHOOKS = Symbol('not labelled for webhooks');
/** A Secret as a delivery sees it: its data, not there (null), or not for webhooks. */
type Readable = Record<string, string> | null | typeof NOT_FOR_WEBHOOKS;

/**
 * The Secrets that hold webhook secrets in cluster mode (docs/operations.md, "Webhook secrets"):
 * read for deliveries (through a short cache: one read per Secret and `ttlMs`, not one per
 * request), and the one per session the gateway writes what REST clients send into. The gateway
 * needs `get`, `create`, `update` and `delete` on Secrets of its namespace, and no `list` or
 * `watch`: it never sees a Secret no webhook names.
 */
export class SessionSecrets {
  private readonly api: CoreV1Api;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { data: Promise<Readable>; expiresAt: number }>();

  constructor(private readonly options: SessionSecretsOptions) {
    this.api = options.kubeConfig.makeApiClient(CoreV1Api);
    this.ttlMs = options.ttlMs ?? 30_000;
  }

  /**
   * One key of a Secret, as read at most `ttlMs` ago. Rejects with SecretUnavailable, also for a
   * Secret without the `switchboard.dev/webhook-secrets: "true"` label (LABELS.webhookSecrets).
   */
  async value(ref: SecretKeySelector): Promise<string> {
    const data = await this.cached(ref.name);
    if (data === null) throw new SecretUnavailable(`Secret '${ref.name}' not found in namespace '${this.options.namespace}'`);
    if (data === NOT_FOR_WEBHOOKS) {
      throw new SecretUnavailable(`Secret '${ref.name}' is not labelled ${LABELS.webhookSecrets}=true, which lets webhooks read it`);
    }
    const value = data[ref.key];
    if (value === undefined) throw new SecretUnavailable(`Secret '${ref.name}' has no key '${ref.key}'`);
    return value;
  }

  /** Reads the Secret again at its next use: it changed, or the resource naming it did. */
  forget(name: string): void {
    this.cache.delete(name);
  }

  /** A Secret's data as it is now, decoded; null when there is no such Secret. */
  async read(name: string): Promise<Record<string, string> | null> {
    const secret = await this.get(name);
    return secret ? decode(secret) : null;
  }

  /**
   * Makes the session's own Secret hold exactly `data`, owned by `owner` (a controller reference
   * without blockOwnerDeletion, so the garbage collector deletes it after the resource and the
   * gateway needs no finalizer rights). Resolves to the Secret's new resourceVersion.
   */
  async write(owner: MessagingSession, data: Record<string, string>): Promise<string> {
    const resourceName = owner.metadata?.name ?? '';
    const name = webhookSecretName(resourceName);
    this.forget(name);
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name,
        labels: { [LABELS.app]: 'switchboard', [LABELS.component]: COMPONENT, [LABELS.session]: resourceName, [LABELS.webhookSecrets]: 'true' },
        ownerReferences: [
          { apiVersion: API_VERSION, kind: MESSAGING_SESSION.kind, name: resourceName, uid: owner.metadata?.uid ?? '', controller: true },
        ],
      },
      data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')])),
    };
    const namespace = this.options.namespace;
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await this.get(name);
        if (!existing) return version(await this.api.createNamespacedSecret({ namespace, body }));
        if (existing.metadata?.labels?.[LABELS.component] !== COMPONENT) {
          throw new ApiError(
            409,
            `Secret '${name}' exists and was not made by the gateway: remove or rename it to store this session's webhook secrets`,
            {
              secret: name,
            },
          );
        }
        const replacement = { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } };
        return version(await this.api.replaceNamespacedSecret({ name, namespace, body: replacement }));
      } catch (error) {
        // Another replica wrote it between our read and our write: read it again.
        if (httpStatusOf(error) !== 409 || attempt === 3) throw error;
      }
    }
  }

  /** Deletes the session's own Secret; one already gone is as good. */
  async delete(resourceName: string): Promise<void> {
    const name = webhookSecretName(resourceName);
    this.forget(name);
    try {
      await this.api.deleteNamespacedSecret({ name, namespace: this.options.namespace });
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
    }
  }

  private cached(name: string): Promise<Readable> {
    const now = Date.now();
    const entry = this.cache.get(name);
    if (entry && entry.expiresAt > now) return entry.data;
    const data = this.get(name).then(
      (found) => {
        const readable = !found ? null : found.metadata?.labels?.[LABELS.webhookSecrets] === 'true' ? decode(found) : NOT_FOR_WEBHOOKS;
        // Only a Secret webhooks may read is kept: one made or labelled after a failed delivery
        // is read by the next attempt.
        if (readable === null || readable === NOT_FOR_WEBHOOKS) this.cache.delete(name);
        return readable;
      },
      (error: unknown) => {
        this.cache.delete(name);
        const status = httpStatusOf(error);
        throw new SecretUnavailable(`cannot read Secret '${name}': ${status === undefined ? String(error) : `HTTP ${status}`}`);
      },
    );
    this.cache.set(name, { data, expiresAt: now + this.ttlMs });
    return data;
  }

  private async get(name: string): Promise<V1Secret | undefined> {
    try {
      return await this.api.readNamespacedSecret({ name, namespace: this.options.namespace });
    } catch (error) {
      if (httpStatusOf(error) === 404) return undefined;
      throw error;
    }
  }
}

function decode(secret: V1Secret): Record<string, string> {
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

function version(secret: V1Secret): string {
  return secret.metadata?.resourceVersion ?? '';
}
