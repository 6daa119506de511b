import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ApiError } from '../../http/errors.js';
import type { SchemaPart } from './database.js';

/** One row, rewritten by each probe: a commit as small as a commit can be. */
export const commitProbeSchema: SchemaPart = {
  name: 'commit-probe',
  ddl: 'CREATE TABLE IF NOT EXISTS commit_probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);',
};

/**
 * A 201 means stored. The outbox's group commit (`WriteBatch`) tells the gate of each commit that
 * failed (a full disk); the calls that make events (sends, simulations) run through `guard`:
 * - a call during which a commit failed answers 507: its events may be in that commit, which left
 *   nothing (the batch rolls back whole), so nothing of them is delivered or logged;
 * - after a failure, such calls are refused with 507 before they do anything, until a probe
 *   commit succeeds (every `probeEveryMs`): the gateway recovers by itself when space returns;
 * - while another writer holds writes it cannot commit (`holding`: the message history's, which
 *   retries them), such calls are refused the same way, until it has committed them: what a 201
 *   stored reaches every place a client reads it, and what is held stays bounded.
 * Reads go on all the while.
 * The price on the hot path: a counter read before the call and compared after it.
 */
export class CommitGate {
  private failures = 0;
  /** Why calls are refused now; null while commits work. */
  private reason: string | null = null;
  /** Other writers that hold writes now, and why. */
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly probeWrite: StatementSync;

  constructor(
    private readonly db: DatabaseSync,
    private readonly probeEveryMs = 1_000,
  ) {
    this.probeWrite = db.prepare('INSERT OR REPLACE INTO commit_probe (id, at) VALUES (1, ?)');
  }

  /** A commit failed: nothing of it is stored. */
  failed(error: unknown): void {
    this.failures++;
    this.reason = reasonOf(error);
    this.timer ??= setInterval(() => this.probe(), this.probeEveryMs).unref();
  }

  /** `writer` (its name, for the refusal) holds writes for want of storage (`reason`), or, with null, no longer. */
  holding(writer: string, reason: string | null): void {
    if (reason === null) this.held.delete(writer);
    else this.held.set(writer, reason);
  }

  /** Runs a call that makes events; 507 when commits fail, before it or while it runs. */
  async guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.reason !== null) throw refused(this.reason, false);
    const [held] = this.held;
    if (held) throw refused(`${held[0]} cannot be written: ${held[1]}`, false);
    const before = this.failures;
    // Events made by the call are committed before its promise settles: the batch's commit is a
    // microtask queued at the first write, ahead of the call's own continuation.
    const result = await call();
    if (this.failures !== before) throw refused(this.reason ?? 'a commit failed', true);
    return result;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private probe(): void {
    // A group commit is never open across turns; this only guards against a caller's own.
    if (this.db.isTransaction) return;
    try {
      this.probeWrite.run(Date.now());
    } catch {
      return;
    }
    this.reason = null;
    this.stop();
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function refused(reason: string, ran: boolean): ApiError {
  const what = ran
    ? 'the call ran, but its events could not be stored, and none of them is delivered to webhooks'
    : 'events cannot be stored now, so the call was not made';
  return new ApiError(
    507,
    `${what} (${reason}); free space in the data directory: the gateway accepts such calls again once it can write, within a second`,
    { reason },
  );
}
