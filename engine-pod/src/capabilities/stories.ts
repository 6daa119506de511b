import type { DeleteStatusRequest, MediaStatusArgs, MessageRecord, TextStatus } from '@switchboard/protocol';
import type { MediaFile } from '../media/media-store.js';

/** A status with a file: downloaded or decoded, and converted when asked, by the host. */
export type OutgoingMediaStatus = MediaStatusArgs extends infer A
  ? A extends { file: unknown }
    ? Omit<A, 'file' | 'convert'> & { readonly file: MediaFile }
    : never
  : never;

/**
 * Status updates (stories): messages to `status@broadcast`. Each method is optional: an engine
 * without it answers 422 NOT_SUPPORTED naming itself (dispatch/stories.ts). They need WORKING.
 * A send answers the message record of spec 2.5 and emits `message.any` (source `api`), as other
 * sends do.
 */
export interface StatusCapability {
  sendTextStatus?(status: TextStatus): Promise<MessageRecord>;
  sendMediaStatus?(status: OutgoingMediaStatus): Promise<MessageRecord>;
  /** Revokes a status the account posted, for `contacts` (or everyone it was posted to). */
  deleteStatus?(request: DeleteStatusRequest): Promise<void>;
}
