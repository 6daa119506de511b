import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SchemaPart } from '../store/database.js';
import type { DisabledEntry, WebhookStates } from '../../webhooks/ports.js';

/** One row per webhook a 410 Gone disabled, by (session, url). */
export const webhookStatesSchema: SchemaPart = {
  name: 'webhook-states',
  ddl: `
    CREATE TABLE IF NOT EXISTS webhook_disabled (
      session TEXT NOT NULL,
      url TEXT NOT NULL,
      disabled_at INTEGER NOT NULL,
      PRIMARY KEY (session, url)
    );
  `,
};

/**
 * Local mode's `WebhookStates`: the table above, and a copy in memory for the dispatcher's look
 * before each attempt. Writes are single statements, outside the outbox's batch: a disable lost to
 * a crash only means the next attempt gets its 410 again.
 */
export class SqliteWebhookStates implements WebhookStates {
  private readonly disabled = new Map<string, Map<string, number>>();
  private readonly insert: StatementSync;
  private readonly remove: StatementSync;
  private readonly removeSession: StatementSync;

  constructor(db: DatabaseSync) {
    this.insert = db.prepare('INSERT OR IGNORE INTO webhook_disabled (session, url, disabled_at) VALUES (?, ?, ?)');
    this.remove = db.prepare('DELETE FROM webhook_disabled WHERE session = ? AND url = ?');
    this.removeSession = db.prepare('DELETE FROM webhook_disabled WHERE session = ?');
    const rows = db.prepare('SELECT session, url, disabled_at FROM webhook_disabled').all() as {
      session: string;
      url: string;
      disabled_at: number;
    }[];
    for (const row of rows) this.remember(row.session, row.url, row.disabled_at);
  }

  isDisabled(session: string, url: string): boolean {
    return this.disabled.size > 0 && (this.disabled.get(session)?.has(url) ?? false);
  }

  disable(session: string, url: string, at: number): Promise<void> {
    if (this.isDisabled(session, url)) return Promise.resolve();
    this.insert.run(session, url, at);
    this.remember(session, url, at);
    return Promise.resolve();
  }

  list(session: string): Promise<DisabledEntry[]> {
    const entries = [...(this.disabled.get(session) ?? [])].map(([url, disabledAt]) => ({ url, disabledAt }));
    return Promise.resolve(entries.sort((a, b) => a.disabledAt - b.disabledAt));
  }

  enable(session: string, urls?: readonly string[]): Promise<string[]> {
    const held = this.disabled.get(session);
    if (!held) return Promise.resolve([]);
    const enabled = [...held.keys()].filter((url) => urls === undefined || urls.includes(url));
    for (const url of enabled) {
      this.remove.run(session, url);
      held.delete(url);
    }
    if (held.size === 0) this.disabled.delete(session);
    return Promise.resolve(enabled);
  }

  /** A deleted session's states go with it: one made again under the name starts enabled. */
  forgetSession(session: string): void {
    this.removeSession.run(session);
    this.disabled.delete(session);
  }

  private remember(session: string, url: string, at: number): void {
    let held = this.disabled.get(session);
    if (!held) this.disabled.set(session, (held = new Map<string, number>()));
    held.set(url, at);
  }
}
