import type { MeInfo, MyProfile } from '@switchboard/protocol';
import type { EngineContext } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';

/** Kept in the auth state beside the pairing: it survives a restart and goes with a logout. */
const PROFILE = 'profile';

interface SavedProfile {
  /** The About text. */
  status?: string;
  /** Where the picture can be downloaded; null when there is none. */
  picture?: string | null;
}

/** What the profile needs of the engine: the account, and a way to rename it. */
export interface ProfileOwner {
  readonly context: EngineContext;
  /** The account, or a 422 when the session is not WORKING. */
  requireWorking(): MeInfo;
  /** The profile name is the account's push name: `me` changes with it. */
  rename(pushName: string): Promise<void>;
}

/**
 * The SANDBOX account's profile (spec 4.4). The name is `me.pushName`; the picture is kept in the
 * media store (when the host has one), so `picture` is a download address like `media.url`.
 */
export class SandboxProfile {
  constructor(private readonly owner: ProfileOwner) {}

  async read(): Promise<MyProfile> {
    const me = this.owner.requireWorking();
    const saved = await this.saved();
    return { id: me.id, name: me.pushName, picture: saved.picture ?? null };
  }

  async setName(name: string): Promise<void> {
    this.owner.requireWorking();
    await this.owner.rename(name);
  }

  async setStatus(status: string): Promise<void> {
    this.owner.requireWorking();
    await this.save({ status });
  }

  async setPicture(picture: MediaFile): Promise<void> {
    this.owner.requireWorking();
    const stored = await this.owner.context.saveMedia(picture);
    await this.save({ picture: stored?.url ?? null });
  }

  async deletePicture(): Promise<void> {
    this.owner.requireWorking();
    await this.save({ picture: null });
  }

  private async saved(): Promise<SavedProfile> {
    return (await this.owner.context.authState.get<SavedProfile>(PROFILE, [PROFILE]))[PROFILE] ?? {};
  }

  private async save(change: SavedProfile): Promise<void> {
    await this.owner.context.authState.set({ [PROFILE]: { [PROFILE]: { ...(await this.saved()), ...change } } });
  }
}
