import type { MyProfile } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { MediaFile } from '../../media/media-store.js';
import { pictureOf, refused, type WppChatsClient } from './wpp-chats.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';

/** The slice of WPPConnect's client (its profile layer) the account's own profile uses. */
export interface WppProfileClient extends Pick<WppChatsClient, 'getProfilePicFromServer'> {
  readonly page: WppPage;
  setProfileName(name: string): Promise<unknown>;
  setProfileStatus(status: string): Promise<unknown>;
  /** A `data:` URL; WPPConnect makes the 640 and 96 pixel JPEGs WhatsApp keeps and answers the server's reply. */
  setProfilePic(pathOrBase64: string): Promise<{ readonly status?: number } | undefined>;
  /** True once the server removed it. */
  removeMyProfilePicture(): Promise<boolean>;
}

/**
 * The account's own profile on WPP (spec 4.4), through WPPConnect's client: `setProfileName`,
 * `setProfileStatus`, `setProfilePic` and `removeMyProfilePicture` (wa-js's `WPP.profile.*` on
 * WhatsApp Web's push name, About text and picture bridges); the picture read like anyone's.
 */
export class WppProfile {
  constructor(private readonly connection: WppConnection) {}

  async profile(): Promise<MyProfile> {
    const id = this.connection.meId();
    return { id, name: this.connection.pushName(), picture: await pictureOf(this.client(), id) };
  }

  async setProfileName(name: string): Promise<void> {
    const client = this.client();
    // WhatsApp Web's own rule (`Conn.canSetMyPushname`: a business account's name is its
    // business's), which whatsapp-web.js asks and WPPConnect's setProfileName does not.
    const allowed = await client.page
      .evaluate(() => (globalThis as unknown as WppProfilePage).WPP.whatsapp.Conn.canSetMyPushname?.() !== false)
      .catch((error: unknown) => this.refused('change the profile name', error));
    if (!allowed) {
      throw new CommandError('WRONG_STATUS', 'WhatsApp Web does not let this account change its name now', {
        session: this.connection.context.session,
      });
    }
    await client.setProfileName(name).catch((error: unknown) => this.refused('change the profile name', error));
    this.connection.renamed(name);
  }

  async setProfileStatus(status: string): Promise<void> {
    await this.client()
      .setProfileStatus(status)
      .catch((error: unknown) => this.refused('change the About text', error));
  }

  async setProfilePicture(picture: MediaFile): Promise<void> {
    const dataUrl = `data:${picture.mimetype};base64,${picture.data.toString('base64')}`;
    const result = await this.client()
      .setProfilePic(dataUrl)
      .catch((error: unknown) => this.refused('change the profile picture', error));
    if (result?.status !== 200)
      throw new CommandError('ENGINE_ERROR', 'WhatsApp did not take the profile picture', { session: this.connection.context.session });
  }

  async deleteProfilePicture(): Promise<void> {
    const done = await this.client()
      .removeMyProfilePicture()
      .catch((error: unknown) => this.refused('remove the profile picture', error));
    if (!done) throw new CommandError('ENGINE_ERROR', 'WhatsApp did not remove the profile picture', { session: this.connection.context.session });
  }

  private refused(what: string, error: unknown): never {
    return refused(what, error, this.connection.meId());
  }

  private client(): WppProfileClient {
    return this.connection.workingClient();
  }
}

/** What renaming reads of wa-js in the page (`window.WPP`): WhatsApp Web's connection model. */
interface WppProfilePage {
  WPP: { whatsapp: { Conn: { canSetMyPushname?(): boolean } } };
}
