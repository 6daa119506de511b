import type { MyProfile } from '@switchboard/protocol';
import type { MediaFile } from '../media/media-store.js';

/**
 * The account's own profile (spec 4.4), for engines whose messaging service lets a linked device
 * change it. Each method is optional: an engine without it answers 422 NOT_SUPPORTED naming
 * itself (dispatch/profile.ts). All of them need WORKING.
 */
export interface ProfileEditing {
  profile?(): Promise<MyProfile>;
  setProfileName?(name: string): Promise<void>;
  /** The About text. */
  setProfileStatus?(status: string): Promise<void>;
  /** The picture, already downloaded or decoded by the host (media/resolve-file.ts). */
  setProfilePicture?(picture: MediaFile): Promise<void>;
  deleteProfilePicture?(): Promise<void>;
}
