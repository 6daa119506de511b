import type {
  EngineCommand,
  SessionCreateRequest,
  SessionDTO,
  SessionInfo,
  SessionStartDeprecatedRequest,
  SessionUpdateRequest,
} from '@switchboard/protocol';

/**
 * The session backend port: everything the routes ask of sessions. Local mode keeps sessions in
 * SQLite and runs their engines in process; cluster mode keeps them as MessagingSession
 * resources and talks to engine pods over NATS. Routes do not know which one they use.
 */
export interface SessionBackend {
  list(options: { all: boolean; expandApps: boolean }): Promise<SessionInfo[]>;
  /** Throws a 404 ApiError for an unknown session (as do all methods but delete). */
  get(name: string, options: { expandApps: boolean }): Promise<SessionInfo>;
  /** Throws SessionExists (422, as the peer product answers) when the name is taken. */
  create(request: SessionCreateRequest): Promise<SessionDTO>;
  update(name: string, request: SessionUpdateRequest): Promise<SessionDTO>;
  /** Deprecated start: creates the session when missing, else updates its config, then starts it. */
  upsertAndStart(request: SessionStartDeprecatedRequest): Promise<SessionDTO>;
  /** Stops, logs out and removes; idempotent. */
  delete(name: string): Promise<void>;
  start(name: string): Promise<SessionDTO>;
  stop(name: string): Promise<SessionDTO>;
  restart(name: string): Promise<SessionDTO>;
  /** Unpairs; starts again unless the session was STOPPED (spec part 3, rule 4). */
  logout(name: string): Promise<SessionDTO>;
  command(name: string, command: EngineCommand): Promise<unknown>;
  close(): Promise<void>;
}
