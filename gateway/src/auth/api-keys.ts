import { type ApiKeyDTO, type ApiKeyRequest, type ApiKeyUpdateRequest, adminKeyLimitIssues, type StoredApiKey } from '@switchboard/protocol';
import { monotonicFactory } from 'ulid';
import { ApiError } from '../http/errors.js';
import type { SessionBackend } from '../sessions/backend.js';
import { generateApiKey, hashApiKey } from './api-key.js';
import { type ApiKeyStore, isScoped } from './key-store.js';
import { type Incarnations, isStale } from './principal.js';

const nextUlid = monotonicFactory();

export type ScopedKind = 'media' | 'control';

/**
 * Key management (spec 4.2) over either store. The secret leaves the server once, in the answer
 * that made it; only its hash is stored, so every other answer (list, update, and the existing
 * key of a session answered by the media and control calls) has no `key` field.
 */
export class ApiKeys {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly sessions: Pick<SessionBackend, 'get'>,
    /**
     * The current incarnation of a session: a key limited to one is bound to it when it is made
     * or moved, so it lets no one into a later session of the same name (authorize.ts).
     */
    private readonly incarnations: Incarnations = () => undefined,
  ) {}

  list(): ApiKeyDTO[] {
    return this.store.ring.all().map((key) => toDTO(key));
  }

  async create(request: ApiKeyRequest): Promise<ApiKeyDTO> {
    const secret = generateApiKey();
    const key: StoredApiKey = {
      id: newKeyId(),
      hash: hashApiKey(secret),
      kind: request.isAdmin ? 'admin' : 'general',
      session: request.session,
      isActive: request.isActive,
      actions: request.actions,
      createdAt: Date.now(),
      ...this.boundTo(request.session),
    };
    await this.store.add(key);
    return toDTO(key, secret);
  }

  /**
   * The one media or control key of a session: made (with its secret) when the session has none,
   * else the existing one without its secret, which cannot be shown again. Losing it means
   * deleting that key and asking again. The key of an earlier session of the name (deleted while
   * no gateway saw it) lets no one in: it is deleted, and a new one made.
   */
  async scoped(kind: ScopedKind, session: string): Promise<ApiKeyDTO> {
    await this.requireSession(session);
    const existing = this.store.ring.scoped(kind, session);
    if (existing && isStale(existing, session, this.incarnations)) await this.store.remove(existing.id);
    else if (existing) return toDTO(existing);
    const secret = generateApiKey();
    const key: StoredApiKey = {
      id: newKeyId(),
      hash: hashApiKey(secret),
      kind,
      session,
      isActive: true,
      actions: null,
      createdAt: Date.now(),
      ...this.boundTo(session),
    };
    const stored = await this.store.add(key);
    return stored.id === key.id ? toDTO(key, secret) : toDTO(stored);
  }

  /**
   * Changes the settings the request sends and keeps the others; the secret stays. A media or
   * control key stays what it is: only `isActive` may change.
   */
  async update(id: string, request: ApiKeyUpdateRequest): Promise<ApiKeyDTO> {
    const current = this.require(id);
    const isAdmin = request.isAdmin ?? current.kind === 'admin';
    const session = request.session === undefined ? current.session : request.session;
    const actions = request.actions === undefined ? current.actions : request.actions;
    if (isScoped(current)) {
      const moved = isAdmin || actions !== null || session !== current.session;
      if (moved) {
        throw new ApiError(422, `API key ${id} is the ${current.kind} key of session '${current.session}': only isActive can change`, {
          id,
          kind: current.kind,
          session: current.session,
        });
      }
    }
    const issues = adminKeyLimitIssues({ isAdmin, session, actions }).map(({ path, message }) => ({
      path: `body.${path}`,
      reason: `${message}: send "${path}": null with "isAdmin": true`,
    }));
    if (issues.length > 0) {
      throw new ApiError(400, `invalid request: ${issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ')}`, issues);
    }
    const { incarnation: _, ...rest } = current;
    const next: StoredApiKey = {
      ...rest,
      kind: isScoped(current) ? current.kind : isAdmin ? 'admin' : 'general',
      session,
      isActive: request.isActive ?? current.isActive,
      actions,
      // Limited to another session now: bound to that one as it is now.
      ...(session === current.session ? (current.incarnation === undefined ? {} : { incarnation: current.incarnation }) : this.boundTo(session)),
    };
    if (!(await this.store.replace(next))) throw notFound(id);
    return toDTO(next);
  }

  /**
   * Deletes the keys limited to a session being deleted, so that a later session of the same
   * name is not open to them. Keys made after `madeBefore` (ms; the time the delete began, where
   * the session might be gone already) are kept: they were made for the name as it is now.
   */
  async forgetSession(session: string, madeBefore = Number.POSITIVE_INFINITY): Promise<void> {
    const keys = this.store.ring.all().filter((key) => key.session === session && key.createdAt <= madeBefore);
    await Promise.all(keys.map((key) => this.store.remove(key.id)));
  }

  async delete(id: string): Promise<void> {
    this.require(id);
    if (!(await this.store.remove(id))) throw notFound(id);
  }

  /** The incarnation a key limited to `session` is bound to; none when no such session is known. */
  private boundTo(session: string | null): { incarnation?: string } {
    const incarnation = session === null ? undefined : this.incarnations(session);
    return incarnation === undefined ? {} : { incarnation };
  }

  private require(id: string): StoredApiKey {
    const key = this.store.ring.get(id);
    if (!key) throw notFound(id);
    return key;
  }

  private async requireSession(session: string): Promise<void> {
    try {
      await this.sessions.get(session, { expandApps: false });
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 404) {
        throw new ApiError(422, `session '${session}' does not exist: create it before its key`, { session });
      }
      throw error;
    }
  }
}

function newKeyId(): string {
  return `key_${nextUlid().toLowerCase()}`;
}

function notFound(id: string): ApiError {
  return new ApiError(404, `API key ${id} does not exist`, { id });
}

function toDTO(key: StoredApiKey, secret?: string): ApiKeyDTO {
  return {
    id: key.id,
    ...(secret === undefined ? {} : { key: secret }),
    isActive: key.isActive,
    isAdmin: key.kind === 'admin',
    session: key.session,
    actions: key.actions,
    kind: key.kind,
  };
}
