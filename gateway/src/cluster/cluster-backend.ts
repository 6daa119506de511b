import { wrongStatusError } from '@switchboard/engine-pod';
import { isConflict, isDeleting, type MessagingSession, newMessagingSession, sessionNameOf } from '@switchboard/kube';
import {
  ANNOTATIONS,
  type AppConfig,
  type DesiredState,
  type EngineCommand,
  type EngineName,
  type HostCommand,
  LOGOUT_FINALIZER,
  type MessagingSessionSpec,
  type ResourceWebhookConfig,
  resourceNameFor,
  type SecretKeySelector,
  type SendingConfig,
  type SessionConfig,
  type SessionCreateRequest,
  type SessionDTO,
  type SessionInfo,
  type SessionStartDeprecatedRequest,
  SessionStatus,
  type SessionUpdateRequest,
  webhookSecretName,
} from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import { ApiError, SessionExists } from '../http/errors.js';
import type { SessionBackend } from '../sessions/backend.js';
import { appsToCheck, requireEngine, requireOperation } from '../sessions/engine-catalog.js';
import { effectiveStatus, inCreationOrder, toSessionDTO, toSessionInfo } from './messaging-session.js';
import type { SessionCache } from './session-cache.js';
import type { SessionCommandChannel } from './session-commands.js';
import type { JsonPatchOperation, SessionResources } from './session-resources.js';
import type { SessionSecrets } from './session-secrets.js';
import { hasPlainSecrets, secretNamesOf, storeSecrets } from './webhook-secrets.js';

/** Where a client-side `kubectl apply` keeps what it applied. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export interface ClusterBackendOptions {
  readonly resources: SessionResources;
  readonly cache: SessionCache;
  /** Where the webhook secrets REST clients send are kept: a Secret per session. */
  readonly secrets: SessionSecrets;
  readonly commands: SessionCommandChannel;
  /** Forgets a session's pairing when no engine pod can (engine-pod's `purgeSessionAuth`). */
  readonly purgeAuth: (session: string) => Promise<unknown>;
  /** Forgets what was kept of an account beside its auth state (history, media): on logout and delete. */
  readonly forget?: (session: string) => Promise<void>;
  /**
   * Deletes the keys limited to a session being deleted, made before `madeBefore` (ms), so that a
   * session made again with the name is not open to them (ApiKeys.forgetSession).
   */
  readonly forgetKeys?: (session: string, madeBefore: number) => Promise<void>;
  /**
   * Drops what belongs to a deleted session and not to its name (its events, webhook queues and
   * dead letters), once its resource is gone: a session made again with the name starts clean.
   */
  readonly ended?: (session: string) => Promise<void>;
  readonly defaultEngine: EngineName;
  readonly log: Logger;
  /** The events this replica sees, for `timestamps.activity`. */
  readonly events?: EventBus;
  /** How long stop waits for STOPPED, and delete for the resource to be gone. */
  readonly settleTimeoutMs?: number;
}

type SpecChange = { engine?: EngineName; config?: SessionConfig; apps?: AppConfig[] | null };
/** A spec as a request gives it: the config in the API's shape, its secrets as values. */
type RequestedSpec = Omit<MessagingSessionSpec, 'session' | 'config'> & { config: SessionConfig };

/**
 * Cluster mode: each session is a MessagingSession resource, which the operator turns into one
 * engine pod; commands go to that pod over NATS. Reads come from the informer cache. Answers,
 * statuses and errors are those of LocalSessionBackend, so clients cannot tell the modes apart,
 * except that a status changes a moment later here (the operator reports it asynchronously).
 */
export class ClusterSessionBackend implements SessionBackend {
  /** Time of the last event seen per session: `timestamps.activity`, as far as this replica knows. */
  private readonly activity = new Map<string, number>();
  private readonly unsubscribe: (() => void) | undefined;
  private readonly settleTimeoutMs: number;

  constructor(private readonly options: ClusterBackendOptions) {
    requireEngine(options.defaultEngine);
    this.settleTimeoutMs = options.settleTimeoutMs ?? 30_000;
    this.unsubscribe = options.events?.subscribe(({ envelope }) => this.activity.set(envelope.session, envelope.timestamp));
  }

  async list({ all, expandApps }: { all: boolean; expandApps: boolean }): Promise<SessionInfo[]> {
    const resources = this.options.cache.list() ?? (await this.options.resources.list()).items;
    return inCreationOrder(resources.filter((resource) => !isDeleting(resource)))
      .map((resource) => this.info(resource, expandApps))
      .filter((info) => all || info.status !== 'STOPPED');
  }

  async get(name: string, { expandApps }: { expandApps: boolean }): Promise<SessionInfo> {
    return this.info(await this.require(name), expandApps);
  }

  async create(request: SessionCreateRequest): Promise<SessionDTO> {
    const known = this.options.cache.lookup(resourceNameFor(request.name));
    if (known && !isDeleting(known) && sessionNameOf(known) === request.name) throw new SessionExists(request.name);
    const engine = requireEngine(request.engine ?? this.options.defaultEngine, request.config, request.apps ?? []);
    const desiredState: DesiredState = request.start ? 'Running' : 'Stopped';
    return toSessionDTO(await this.createResource(request.name, { engine, desiredState, ...specOf(request) }));
  }

  async update(name: string, request: SessionUpdateRequest): Promise<SessionDTO> {
    if (request.name !== undefined && request.name !== name) {
      throw new ApiError(400, `the body names session '${request.name}' but the path names '${name}'; sessions cannot be renamed`, [
        { path: 'body.name', reason: 'must match the session in the path' },
      ]);
    }
    const updated = await this.applyUpdate(await this.require(name), request);
    return toSessionDTO(request.start ? await this.setDesired(updated, 'Running') : updated);
  }

  upsertAndStart(request: SessionStartDeprecatedRequest): Promise<SessionDTO> {
    return this.upsert(request, false);
  }

  /**
   * Marks the resource for logout, deletes it, and waits (bounded) until it is gone: the
   * operator's finalizer stops the pod and logs the account out first. A resource the operator
   * never took on has no finalizer, so its auth state is purged here, before the delete, so that
   * a failed purge can be retried by deleting again.
   */
  async delete(name: string): Promise<void> {
    const current = await this.lookup(name);
    if (!current) return;
    const resourceName = resourceNameFor(name);
    if (!isDeleting(current)) {
      const marked = await this.options.resources.mergePatch(resourceName, {
        metadata: { annotations: { [ANNOTATIONS.logoutOnDelete]: 'true' } },
      });
      if (marked && !marked.metadata?.finalizers?.includes(LOGOUT_FINALIZER)) await this.options.purgeAuth(name);
      if (marked) {
        const deleting = Date.now();
        await this.options.resources.delete(resourceName);
        await this.options.forgetKeys?.(name, deleting);
      }
    }
    const uid = current.metadata?.uid;
    const { settled, resource } = await this.options.cache.waitFor(resourceName, (r) => !r || r.metadata?.uid !== uid, this.settleTimeoutMs);
    if (!settled) this.options.log.warn({ session: name }, 'session still terminating: its logout finalizer has not finished');
    this.options.cache.rememberGone(resourceName, resource ?? current);
    this.activity.delete(name);
    // Still terminating: its pod may publish yet, so the streams are left to a delete that finds it gone.
    if (settled) await this.options.ended?.(name);
    await this.options.forget?.(name);
  }

  /** A FAILED engine has given up: its pod is replaced, as on restart, so that it tries again. */
  async start(name: string): Promise<SessionDTO> {
    const current = await this.require(name);
    if (current.spec.desiredState === 'Running' && effectiveStatus(current) === 'FAILED') return this.restart(name);
    return toSessionDTO(await this.setDesired(current, 'Running'));
  }

  /** Waits (bounded) until the operator reports STOPPED, so the answer says STOPPED as in local mode. */
  async stop(name: string): Promise<SessionDTO> {
    const stopping = await this.setDesired(await this.require(name), 'Stopped');
    if (effectiveStatus(stopping) === 'STOPPED') return toSessionDTO(stopping);
    const { settled, resource } = await this.options.cache.waitFor(
      resourceNameFor(name),
      (r) => !r || isDeleting(r) || effectiveStatus(r) === 'STOPPED',
      this.settleTimeoutMs,
    );
    if (!resource || isDeleting(resource)) throw ApiError.notFound(name);
    if (!settled) this.options.log.warn({ session: name, status: effectiveStatus(resource) }, 'session did not report STOPPED in time');
    this.options.cache.remember(resource);
    return toSessionDTO(resource);
  }

  /** A new restart annotation makes the operator replace the engine pod. */
  async restart(name: string): Promise<SessionDTO> {
    const restarted = await this.patch(await this.require(name), {
      metadata: { annotations: { [ANNOTATIONS.restartedAt]: new Date().toISOString() } },
      spec: { desiredState: 'Running' },
    });
    return toSessionDTO(restarted, 'STARTING');
  }

  /**
   * A running pod logs out and starts again unpaired (spec part 3, rule 4); the answer carries
   * the status it reports then. With no pod, the session's auth state is purged from NATS KV.
   * So is a stopped session's: its pod may still be terminating and answering, and must not
   * start its engine again.
   */
  async logout(name: string): Promise<SessionDTO> {
    const current = await this.require(name);
    const running = current.spec.desiredState === 'Running';
    const loggedOut = running ? await this.options.commands.send(name, { op: 'host.logout' }) : null;
    await this.options.forget?.(name);
    if (!loggedOut) {
      await this.options.purgeAuth(name);
      return toSessionDTO(current);
    }
    const reported = await this.options.commands.send(name, { op: 'host.status' }).catch(() => null);
    const status = SessionStatus.safeParse((reported?.result as { status?: unknown } | null)?.status);
    return toSessionDTO(current, status.success ? status.data : 'STARTING');
  }

  async command(name: string, command: EngineCommand): Promise<unknown> {
    const current = await this.require(name);
    if (command.op === 'me') {
      // The engine knows a rename at once; the resource's status only at its next report. Without
      // a pod (stopped, starting) or an answer, the status's account is the one known.
      const reply = await this.options.commands.send(name, command).catch(() => null);
      return reply ? reply.result : (current.status?.me ?? null);
    }
    // Before it travels: an op the engine lacks is refused from the engine catalog, running or not.
    requireOperation(name, current.spec.engine, command);
    const reply = await this.options.commands.send(name, command);
    if (!reply) throw wrongStatusError(name, effectiveStatus(current), command.op);
    return reply.result;
  }

  /**
   * A host command to the session's engine pod (paced sending's `host.sendQueue.*`, which the
   * pod owns): its result, or null when no pod answers (not running, or still starting), beside
   * the session's resource for the caller's refusal. `timeoutMs`: longer than a command's when the
   * pod answers only after waiting (a paced send's wait).
   */
  async hostCommand(
    name: string,
    command: HostCommand,
    timeoutMs?: number,
  ): Promise<{ reply: { result: unknown } | null; resource: MessagingSession }> {
    const resource = await this.require(name);
    return { reply: await this.options.commands.send(name, command, timeoutMs), resource };
  }

  /** The session's paced sending config as its resource holds it (paced sending: a send waits in its queue when set). */
  sendingOf(name: string): SendingConfig | undefined {
    const resource = this.options.cache.lookup(resourceNameFor(name));
    return resource && sessionNameOf(resource) === name ? resource.spec.config?.sending : undefined;
  }

  /** The session's webhooks as its resource holds them: their secrets are read at delivery. */
  webhooksOf(name: string): readonly ResourceWebhookConfig[] {
    const resource = this.options.cache.lookup(resourceNameFor(name));
    return resource && sessionNameOf(resource) === name ? (resource.spec.config?.webhooks ?? []) : [];
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.options.cache.stop();
  }

  /**
   * The resource of session `name`, terminating ones included. A cache miss is read from the API
   * server: the session may have just been created through another replica.
   */
  private async lookup(name: string): Promise<MessagingSession | undefined> {
    const resourceName = resourceNameFor(name);
    const cached = this.options.cache.lookup(resourceName);
    const resource = cached === undefined ? await this.options.resources.get(resourceName) : cached;
    return resource && sessionNameOf(resource) === name ? resource : undefined;
  }

  /** The live resource of session `name`: one being deleted is gone already. */
  private async find(name: string): Promise<MessagingSession | undefined> {
    const resource = await this.lookup(name);
    return resource && !isDeleting(resource) ? resource : undefined;
  }

  private async require(name: string): Promise<MessagingSession> {
    const resource = await this.find(name);
    if (!resource) throw ApiError.notFound(name);
    return resource;
  }

  private async upsert(request: SessionStartDeprecatedRequest, retried: boolean): Promise<SessionDTO> {
    const existing = await this.find(request.name);
    if (existing) return toSessionDTO(await this.setDesired(await this.applyUpdate(existing, request), 'Running'));
    const engine = requireEngine(request.engine ?? this.options.defaultEngine, request.config, request.apps ?? []);
    try {
      return toSessionDTO(await this.createResource(request.name, { engine, desiredState: 'Running', ...specOf(request) }));
    } catch (error) {
      // Another replica created it between our read and our create: update that one instead.
      if (error instanceof SessionExists && !retried) return this.upsert(request, true);
      throw error;
    }
  }

  /**
   * Creates the resource, then its Secret: the Secret's owner reference needs the resource's uid.
   * A Secret that cannot be written takes the new resource away again, so no session is left
   * whose webhooks name a Secret that is not there.
   */
  private async createResource(name: string, spec: RequestedSpec): Promise<MessagingSession> {
    const resourceName = resourceNameFor(name);
    const { config, data } = await storeSecrets(resourceName, spec.config, undefined, async () => undefined);
    let created: MessagingSession;
    try {
      created = await this.options.resources.create(newMessagingSession(name, { ...spec, config }));
    } catch (error) {
      if (isConflict(error)) throw new SessionExists(name);
      throw error;
    }
    if (Object.keys(data).length > 0) {
      try {
        await this.options.secrets.write(created, data);
      } catch (error) {
        await this.options.resources.delete(resourceName).catch(() => undefined);
        throw error;
      }
    }
    this.options.cache.remember(created);
    return created;
  }

  /**
   * Fields sent replace the stored ones, as in local mode. A JSON patch replaces `config` as a
   * whole; a merge patch would merge the maps inside it, keeping a metadata key the user removed.
   */
  private async applyUpdate(current: MessagingSession, change: SpecChange): Promise<MessagingSession> {
    const name = sessionNameOf(current);
    const wanted = change.engine ?? current.spec.engine;
    const engine = requireEngine(wanted, change.config ?? current.spec.config, appsToCheck(change, wanted, current.spec));
    const operations: JsonPatchOperation[] = [];
    if (engine !== current.spec.engine) operations.push({ op: 'add', path: '/spec/engine', value: engine });
    const unusedSecret = change.config !== undefined && (await this.storeConfig(current, change.config, operations));
    if (change.apps !== undefined) operations.push({ op: 'add', path: '/spec/apps', value: change.apps ?? [] });
    if (operations.length === 0) return current;
    const patched = await this.options.resources.jsonPatch(current.metadata?.name ?? '', operations);
    if (!patched) throw ApiError.notFound(name);
    this.options.cache.remember(patched);
    if (unusedSecret) await this.options.secrets.delete(patched.metadata?.name ?? '');
    // A new engine means a new pod (the operator replaces it when its template changes); the
    // pod that runs now only needs the metadata and the apps, which apply from its next event.
    if (patched.spec.desiredState === 'Running' && engine === current.spec.engine) {
      if (change.config !== undefined) {
        await this.pushToPod(name, { op: 'host.setMetadata', args: { metadata: patched.spec.config?.metadata ?? {} } }, 'metadata');
      }
      if (change.apps !== undefined) await this.pushToPod(name, { op: 'host.setApps', args: { apps: patched.spec.apps ?? [] } }, 'apps');
      if (change.config !== undefined && !sameSending(current.spec.config?.sending, patched.spec.config?.sending)) {
        await this.pushToPod(
          name,
          { op: 'host.sendQueue.setConfig', args: { sending: patched.spec.config?.sending ?? null } },
          'paced sending config',
        );
      }
    }
    return patched;
  }

  /**
   * Adds the new config to `operations`, its secrets written first into the session's Secret,
   * and the Secret's new version into an annotation: that changes the resource, so every replica
   * reads the Secret again rather than sign with a key from its cache. Resolves true when the
   * session's Secret was in use and no longer is (to be deleted once the spec no longer names it).
   */
  private async storeConfig(current: MessagingSession, sent: SessionConfig, operations: JsonPatchOperation[]): Promise<boolean> {
    const resourceName = current.metadata?.name ?? '';
    const own = webhookSecretName(resourceName);
    // The session's own Secret is read as it is now (once), another one as deliveries read it.
    let ownData: Promise<Record<string, string> | null> | undefined;
    const read = async (ref: SecretKeySelector) =>
      ref.name === own ? (await (ownData ??= this.options.secrets.read(own)))?.[ref.key] : this.options.secrets.value(ref).catch(() => undefined);
    const { config, data } = await storeSecrets(resourceName, sent, current.spec.config, read);
    operations.push({ op: 'add', path: '/spec/config', value: config });
    // A client-side `kubectl apply` keeps a copy of what it applied, plain secrets included:
    // moving them out of the spec takes that copy too (its next apply patches as if first).
    if (hasPlainSecrets(current.spec.config) && current.metadata?.annotations?.[LAST_APPLIED] !== undefined) {
      operations.push({ op: 'remove', path: `/metadata/annotations/${jsonPointerToken(LAST_APPLIED)}` });
    }
    if (Object.keys(data).length === 0) return secretNamesOf(current.spec.config).has(own);
    const version = await this.options.secrets.write(current, data);
    operations.push(
      current.metadata?.annotations
        ? { op: 'add', path: `/metadata/annotations/${jsonPointerToken(ANNOTATIONS.webhookSecretVersion)}`, value: version }
        : { op: 'add', path: '/metadata/annotations', value: { [ANNOTATIONS.webhookSecretVersion]: version } },
    );
    return false;
  }

  /** Live settings apply from the next event without a restart; a pod that is not up reads the spec when it starts. */
  private async pushToPod(name: string, command: HostCommand, what: string): Promise<void> {
    try {
      await this.options.commands.send(name, command);
    } catch (error) {
      this.options.log.warn({ session: name, err: error }, `engine pod did not take the new ${what}; they apply at its next start`);
    }
  }

  private setDesired(current: MessagingSession, desiredState: DesiredState): Promise<MessagingSession> {
    if (current.spec.desiredState === desiredState) return Promise.resolve(current);
    return this.patch(current, { spec: { desiredState } });
  }

  private async patch(current: MessagingSession, patch: object): Promise<MessagingSession> {
    const patched = await this.options.resources.mergePatch(current.metadata?.name ?? '', patch);
    if (!patched) throw ApiError.notFound(sessionNameOf(current));
    this.options.cache.remember(patched);
    return patched;
  }

  private info(resource: MessagingSession, expandApps: boolean): SessionInfo {
    return toSessionInfo(resource, expandApps, this.activity.get(sessionNameOf(resource)) ?? null);
  }
}

function specOf(request: { config?: SessionConfig; apps?: AppConfig[] | null }): Pick<RequestedSpec, 'config' | 'apps'> {
  return { config: request.config ?? {}, apps: request.apps ?? [] };
}

/** RFC 6901: `~` and `/` inside one token of a JSON pointer. */
function jsonPointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Whether two `sending` configs are the same (a pod is told only of a change). */
function sameSending(a: SendingConfig | undefined, b: SendingConfig | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
