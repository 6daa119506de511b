import type { MyProfile } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { MediaFile } from '../../media/media-store.js';
import type { WebjsDeps } from './deps.js';

/**
 * The account's own profile on WEBJS (spec 4.4): the client's `setDisplayName`, `setStatus`,
 * `setProfilePicture`, `deleteProfilePicture`, and the picture read like anyone's.
 */
export class WebjsProfile {
  constructor(
    private readonly deps: WebjsDeps,
    /** The account's name as the engine reports it (`me`), after a change. */
    private readonly renamed: (name: string) => void,
    private readonly name: () => string,
  ) {}

  async profile(): Promise<MyProfile> {
    const id = this.deps.meId();
    const picture = await this.deps.client().getProfilePicUrl(id).catch(this.deps.engineError('read the profile picture'));
    return { id, name: this.name(), picture: picture ?? null };
  }

  /** The library answers false when WhatsApp Web may not change the name now. */
  async setProfileName(name: string): Promise<void> {
    const done = await this.deps.client().setDisplayName(name).catch(this.deps.engineError('change the profile name'));
    if (!done)
      throw new CommandError('WRONG_STATUS', 'WhatsApp Web does not let this account change its name now', { session: this.deps.context.session });
    this.renamed(name);
  }

  async setProfileStatus(status: string): Promise<void> {
    await this.deps.client().setStatus(status).catch(this.deps.engineError('change the About text'));
  }

  async setProfilePicture(picture: MediaFile): Promise<void> {
    const { MessageMedia } = await this.deps.content();
    const media = new MessageMedia(picture.mimetype, picture.data.toString('base64'), picture.filename, picture.data.length);
    const done = await this.deps.client().setProfilePicture(media).catch(this.deps.engineError('change the profile picture'));
    if (!done) throw new CommandError('ENGINE_ERROR', 'WhatsApp did not take the profile picture', { session: this.deps.context.session });
  }

  async deleteProfilePicture(): Promise<void> {
    const done = await this.deps.client().deleteProfilePicture().catch(this.deps.engineError('remove the profile picture'));
    if (!done) throw new CommandError('ENGINE_ERROR', 'WhatsApp did not remove the profile picture', { session: this.deps.context.session });
  }
}
