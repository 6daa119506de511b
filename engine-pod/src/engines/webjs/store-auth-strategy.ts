import { createRequire } from 'node:module';
import type { AuthStateStore } from '../../auth-state/store.js';
import type { EngineLog } from '../../engine.js';
import { ProfileSnapshots, type RestoreOutcome } from './profile-snapshot.js';

/** The part of the library's `Client` an auth strategy touches. */
interface StrategyClient {
  options: { puppeteer: Record<string, unknown> };
}

/** The library's `BaseAuthStrategy` (src/authStrategies/BaseAuthStrategy.js), typed. */
interface BaseAuthStrategy {
  client: StrategyClient;
  setup(client: StrategyClient): void;
  beforeBrowserInitialized(): Promise<void>;
  afterBrowserInitialized(): Promise<void>;
  onAuthenticationNeeded(): Promise<{ failed: boolean; restart: boolean; failureEventPayload: unknown }>;
  getAuthEventPayload(): Promise<unknown>;
  afterAuthReady(): Promise<void>;
  disconnect(): Promise<void>;
  destroy(): Promise<void>;
  logout(): Promise<void>;
}

// The base class alone, not the package index, which would load puppeteer with it.
const BaseAuthStrategy = createRequire(import.meta.url)('whatsapp-web.js/src/authStrategies/BaseAuthStrategy.js') as new () => BaseAuthStrategy;

export interface StoreAuthStrategyOptions {
  readonly store: AuthStateStore;
  /** The browser profile of this session; the strategy owns it. */
  readonly profileDir: string;
  readonly log: EngineLog;
  /** The first save waits for the web client to settle after `ready` (RemoteAuth waits a minute too). */
  readonly firstSaveAfterMs: number;
  readonly saveEveryMs: number;
}

/**
 * Keeps a WEBJS login in the session's `AuthStateStore`, so local mode (files) and cluster mode
 * (NATS KV, any node) restore it the same way. What whatsapp-web.js needs to log in again is the
 * browser profile's IndexedDB and Local Storage; this strategy saves them (`ProfileSnapshots`)
 * a while after `ready`, then periodically, and once more when the client is destroyed, with
 * the browser closed and the files at rest. Before the browser starts, the profile is restored
 * from the store.
 *
 * A restored login that WhatsApp no longer accepts (the device was unlinked on the phone) is an
 * `auth_failure`: the snapshot is dropped, so the next start shows a QR code.
 */
export class StoreAuthStrategy extends BaseAuthStrategy {
  private readonly snapshots: ProfileSnapshots;
  private restored: RestoreOutcome = 'fresh';
  /** A login worth saving: `ready` came, and no disconnect or logout since. */
  private loggedIn = false;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: StoreAuthStrategyOptions) {
    super();
    this.snapshots = new ProfileSnapshots(options.store, options.profileDir);
  }

  override async beforeBrowserInitialized(): Promise<void> {
    this.restored = await this.snapshots.restore();
    this.client.options.puppeteer = { ...this.client.options.puppeteer, userDataDir: this.options.profileDir };
  }

  override async onAuthenticationNeeded(): Promise<{ failed: boolean; restart: boolean; failureEventPayload: unknown }> {
    if (this.restored === 'fresh') return { failed: false, restart: false, failureEventPayload: undefined };
    this.restored = 'fresh';
    await this.snapshots.forget();
    return {
      failed: true,
      restart: false,
      failureEventPayload: 'the saved login was not accepted (the device may have been unlinked on the phone); start the session again to pair',
    };
  }

  override async afterAuthReady(): Promise<void> {
    if (this.loggedIn) return;
    this.loggedIn = true;
    this.timer = setTimeout(() => this.savePeriodically(), this.options.firstSaveAfterMs);
  }

  /** The client lost its login or its connection: what is saved stays, nothing more is saved. */
  override async disconnect(): Promise<void> {
    this.stopSaving();
  }

  override async destroy(): Promise<void> {
    const save = this.loggedIn;
    this.stopSaving();
    if (save) await this.save();
    else await this.saving;
  }

  override async logout(): Promise<void> {
    this.stopSaving();
    this.restored = 'fresh';
    await this.saving;
    await this.snapshots.forget();
  }

  private savePeriodically(): void {
    void this.save().finally(() => {
      if (this.loggedIn) this.timer = setTimeout(() => this.savePeriodically(), this.options.saveEveryMs);
    });
  }

  /** One save at a time; a failed save is logged and the previous snapshot stays. */
  private save(): Promise<void> {
    this.saving = this.saving.then(() =>
      this.snapshots.save().catch((error: unknown) => {
        this.options.log.warn({ err: error, profileDir: this.options.profileDir }, 'could not save the WEBJS login');
      }),
    );
    return this.saving;
  }

  private stopSaving(): void {
    this.loggedIn = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
