import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
} from '@whiskeysockets/baileys';
import type { AuthStateStore } from '../../auth-state/store.js';
import type { StoredLabels } from './labels.js';

const CREDS = 'creds';
/** The engine's label book (labels.ts), next to the app state versions it goes with. */
const LABELS = 'switchboard-labels';

/** Buffers become `{type: 'Buffer', data: <base64>}`, as in Baileys' own file store. */
const toStored = (value: unknown): unknown => JSON.parse(JSON.stringify(value, BufferJSON.replacer));
const fromStored = <T>(value: unknown): T => JSON.parse(JSON.stringify(value), BufferJSON.reviver) as T;

/**
 * Baileys' auth state (credentials and signal keys) on the engine's `AuthStateStore`, laid out as
 * `useMultiFileAuthState` lays out its files: the credentials under type `creds`, id `creds`, each
 * key under its own type and id. Credential writes go one after the other, so a slow write never
 * lands after a newer one; after `clear` nothing more is written, so a write still in flight
 * cannot bring a logged-out session back.
 */
export class BaileysAuthState {
  private writes: Promise<void> = Promise.resolve();
  private cleared = false;

  private constructor(
    private readonly store: AuthStateStore,
    readonly creds: AuthenticationCreds,
  ) {}

  static async load(store: AuthStateStore): Promise<BaileysAuthState> {
    const found = await store.get(CREDS, [CREDS]);
    const creds = found[CREDS] === undefined ? initAuthCreds() : fromStored<AuthenticationCreds>(found[CREDS]);
    return new BaileysAuthState(store, creds);
  }

  /** True once a phone has linked this device: a start logs in instead of showing a QR code. */
  get isPaired(): boolean {
    return !!this.creds.me?.id && !!this.creds.account;
  }

  get state(): AuthenticationState {
    return {
      creds: this.creds,
      keys: {
        get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
          const stored = await this.store.get(type, ids);
          const found: Record<string, SignalDataTypeMap[T]> = {};
          for (const [id, value] of Object.entries(stored)) {
            let revived = fromStored<SignalDataTypeMap[T]>(value);
            if (type === 'app-state-sync-key') {
              revived = proto.Message.AppStateSyncKeyData.fromObject(revived as object) as unknown as SignalDataTypeMap[T];
            }
            found[id] = revived;
          }
          return found;
        },
        set: async (data: SignalDataSet) => {
          if (this.cleared) return;
          const stored: Record<string, Record<string, unknown>> = {};
          for (const [type, values] of Object.entries(data)) {
            stored[type] = {};
            for (const [id, value] of Object.entries(values ?? {})) stored[type][id] = value ? toStored(value) : null;
          }
          await this.track(this.store.set(stored));
        },
      },
    };
  }

  /** Called on every `creds.update`: Baileys has already merged the update into `creds`. */
  saveCreds(): Promise<void> {
    if (this.cleared) return Promise.resolve();
    const next = this.writes.then(() => (this.cleared ? undefined : this.store.set({ [CREDS]: { [CREDS]: toStored(this.creds) } })));
    this.writes = next.catch(() => {});
    return next;
  }

  /** The label book as last saved; undefined when none was. */
  async labels(): Promise<StoredLabels | undefined> {
    return (await this.store.get<StoredLabels>(LABELS, [LABELS]))[LABELS];
  }

  saveLabels(labels: StoredLabels): Promise<void> {
    if (this.cleared) return Promise.resolve();
    return this.track(this.store.set({ [LABELS]: { [LABELS]: labels } }));
  }

  /** Waits for the writes already started. */
  flush(): Promise<void> {
    return this.writes;
  }

  /** Logout: stop writing, let running writes finish, forget everything. */
  async clear(): Promise<void> {
    this.cleared = true;
    await this.writes;
    await this.store.clear();
  }

  private track(write: Promise<void>): Promise<void> {
    const settled = write.catch(() => {});
    this.writes = this.writes.then(() => settled);
    return write;
  }
}
