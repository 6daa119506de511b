/**
 * Where received (and sent) media is kept so clients can download it at the `media.url` of the
 * message record (spec 2.5). Local mode keeps files under the data dir; cluster mode keeps them
 * in a store every gateway replica reads and that outlives the engine pod. Entries expire after
 * a configurable lifetime.
 */
export interface StoredMedia {
  readonly id: string;
  readonly session: string;
  readonly mimetype: string;
  readonly filename: string | null;
  readonly size: number;
  /** Unix ms after which the file is gone. */
  readonly expiresAt: number;
}

export interface MediaFile {
  readonly mimetype: string;
  readonly filename: string | null;
  readonly data: Buffer;
}

/** What is known of a file before its bytes arrive (received media is streamed). */
export type MediaFileInfo = Omit<MediaFile, 'data'>;

export interface MediaStore {
  put(session: string, file: MediaFile): Promise<StoredMedia>;
  /**
   * Keeps a file as its bytes arrive, never holding it whole. When `data` throws (over the size
   * limit, a download cut off, a hash that does not match), nothing is kept and the error goes on.
   */
  putStream(session: string, file: MediaFileInfo, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredMedia>;
  /** Null when unknown or expired. */
  get(session: string, id: string): Promise<{ meta: StoredMedia; data: Buffer } | null>;
  /** Removes every file of a session (logout, delete). */
  purgeSession(session: string): Promise<void>;
}
