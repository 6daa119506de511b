import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { type EngineHostOptions, type EngineLog, HistoryRecorder, mediaUrl } from '@switchboard/engine-pod';
import { DEFAULT_MEDIA_LIFETIME_MS } from '@switchboard/kube';
import type { EventBus } from '../events/event-bus.js';
import { FileMediaStore } from './file-media-store.js';
import type { SqlWrites } from './store/sql-writes.js';
import { SqliteMessageStore } from './sqlite-message-store.js';

export interface AccountDataOptions {
  /** The main file: media. */
  readonly db: DatabaseSync;
  /** The message history: read through `db` (`history.db`), written through `writes`. */
  readonly history: { readonly db: DatabaseSync; readonly writes?: SqlWrites };
  readonly dataDir: string;
  /** The events to record the history from. */
  readonly bus: EventBus;
  readonly mediaLifetimeMs?: number;
  /** The largest received file engines keep; unset: DEFAULT_MEDIA_MAX_BYTES. */
  readonly mediaMaxBytes?: number | undefined;
  /** The start of every `media.url`, asked when a file is stored (the port is known only once listening). */
  readonly baseUrl: () => string;
  readonly log: EngineLog;
}

/**
 * What local mode keeps of each account beside its auth state: the message history (SQLite,
 * recorded from the bus) and media (files under `<data>/media`). Both are forgotten on logout and
 * delete. The tables are `messageSchema` (in `history.db`) and `mediaSchema`, opened with the databases.
 */
export class AccountData {
  readonly messages: SqliteMessageStore;
  readonly media: FileMediaStore;
  /** What each EngineHost is given to store media. */
  readonly engineMedia: NonNullable<EngineHostOptions['media']>;
  private readonly recorder: HistoryRecorder;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: AccountDataOptions) {
    this.messages = new SqliteMessageStore(options.history.db, options.history.writes);
    this.media = new FileMediaStore({
      db: options.db,
      dir: join(options.dataDir, 'media'),
      lifetimeMs: options.mediaLifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS,
      log: options.log,
    });
    this.engineMedia = {
      store: this.media,
      urlFor: (stored) => mediaUrl(options.baseUrl(), stored),
      ...(options.mediaMaxBytes === undefined ? {} : { maxBytes: options.mediaMaxBytes }),
    };
    this.recorder = new HistoryRecorder(this.messages, options.log);
  }

  start(): void {
    this.unsubscribe = this.options.bus.subscribe(({ envelope }) => this.recorder.record(envelope));
    this.media.start();
  }

  async forget(session: string): Promise<void> {
    await this.recorder.flush();
    await Promise.all([this.messages.purgeSession(session), this.media.purgeSession(session)]);
  }

  /** Before the database closes: every event recorded so far is written. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.media.stop();
    await this.recorder.close();
    await this.options.history.writes?.flush();
  }
}
