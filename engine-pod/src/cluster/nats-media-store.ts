import { DEFAULT_MEDIA_LIFETIME_MS, JS_ERR, jsErrorCode, openMediaObjects } from '@switchboard/kube';
import { OBJECT_STORES } from '@switchboard/protocol';
import { millis, type NatsConnection, nanos, type ObjectStore } from 'nats';
import type { MediaFile, MediaStore, StoredMedia } from '../media/media-store.js';
import { newMediaId } from '../media/media-url.js';

const STREAM = `OBJ_${OBJECT_STORES.media}`;

/** What is kept beside the bytes (object metadata is plain JSON in the object's info). */
interface MediaMetadata {
  readonly mimetype: string;
  readonly filename?: string;
  readonly expiresAt: string;
}

export interface NatsMediaStoreOptions {
  /**
   * The media lifetime. The gateway passes its own and brings the bucket's TTL to it; engine pods
   * leave it out and follow the bucket (creating it with the default when it does not exist yet).
   */
  readonly lifetimeMs?: number;
}

/**
 * Cluster mode's media, in the NATS object store `sb_media`: engine pods write, every gateway
 * replica serves, and files outlive the pod that received them. Object `<session>/<id>`. The
 * bucket's TTL is the lifetime: JetStream removes expired files itself, and a read past the
 * `expiresAt` written at put time answers null even before it does.
 */
export class NatsMediaStore implements MediaStore {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly os: ObjectStore,
  ) {}

  static async open(nc: NatsConnection, options: NatsMediaStoreOptions = {}): Promise<NatsMediaStore> {
    const ttl = nanos(options.lifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS);
    const os = await openMediaObjects(nc, options.lifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS);
    if (options.lifetimeMs !== undefined) {
      const jsm = await nc.jetstreamManager();
      const { config } = await jsm.streams.info(STREAM);
      // JetStream refuses a duplicate window longer than the max age (objects are not deduplicated anyway).
      const duplicateWindow = Math.min(config.duplicate_window, ttl);
      if (config.max_age !== ttl) {
        await jsm.streams.update(STREAM, { ...config, max_age: ttl, duplicate_window: duplicateWindow });
      }
    }
    return new NatsMediaStore(nc, os);
  }

  async put(session: string, file: MediaFile): Promise<StoredMedia> {
    // The bucket's TTL now, as the gateway last set it: that is when JetStream removes the file.
    const lifetimeMs = millis((await this.os.status()).ttl);
    const id = newMediaId();
    const expiresAt = lifetimeMs > 0 ? Date.now() + lifetimeMs : Number.MAX_SAFE_INTEGER;
    const metadata: Record<string, string> = { mimetype: file.mimetype, expiresAt: String(expiresAt) };
    if (file.filename) metadata.filename = file.filename;
    await this.os.putBlob({ name: objectName(session, id), metadata }, file.data);
    return { id, session, mimetype: file.mimetype, filename: file.filename, size: file.data.length, expiresAt };
  }

  async get(session: string, id: string): Promise<{ meta: StoredMedia; data: Buffer } | null> {
    const name = objectName(session, id);
    const info = await this.os.info(name);
    const metadata = info?.metadata as Partial<MediaMetadata> | undefined;
    if (!info || info.deleted || !metadata?.mimetype || Date.now() >= Number(metadata.expiresAt)) return null;
    const data = await this.os.getBlob(name);
    if (!data) return null;
    return {
      meta: {
        id,
        session,
        mimetype: metadata.mimetype,
        filename: metadata.filename ?? null,
        size: data.length,
        expiresAt: Number(metadata.expiresAt),
      },
      data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    };
  }

  async purgeSession(session: string): Promise<void> {
    await purgeSessionMedia(this.nc, session);
  }
}

/** Removes every file of a session without its engine pod (the gateway's logout and delete). */
export async function purgeSessionMedia(nc: NatsConnection, session: string): Promise<number> {
  try {
    await (await nc.jetstreamManager()).streams.info(STREAM);
  } catch (error) {
    // No bucket yet means no file was ever stored; opening it here would create it.
    if (jsErrorCode(error) === JS_ERR.streamNotFound) return 0;
    throw error;
  }
  const os = await nc.jetstream().views.os(OBJECT_STORES.media);
  const prefix = `${session}/`;
  const mine = (await os.list()).filter((info) => info.name.startsWith(prefix));
  for (const info of mine) await os.delete(info.name);
  return mine.length;
}

const objectName = (session: string, id: string) => `${session}/${id}`;
