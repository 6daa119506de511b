import { DEFAULT_MEDIA_LIFETIME_MS, objectStoreExists, openMediaObjects } from '@switchboard/kube/pod';
import { OBJECT_STORES, objectStoreStream } from '@switchboard/protocol';
import { millis, type NatsConnection, nanos, type ObjectStore } from 'nats';
import type { MediaFile, MediaFileInfo, MediaStore, StoredMedia } from '../media/media-store.js';
import { newMediaId } from '../media/media-url.js';

/** What is kept beside the bytes (object metadata is plain JSON in the object's info). */
interface MediaMetadata {
  readonly mimetype: string;
  readonly filename?: string;
  readonly expiresAt: string;
}

export interface NatsMediaStoreOptions {
  /**
   * The media lifetime. The gateway passes its own and brings each session's bucket's TTL to it
   * (`keepLifetime`); engine pods leave it out and follow the bucket (the operator created it
   * with the default, and without NATS credentials a pod creates it so when it is missing).
   */
  readonly lifetimeMs?: number;
}

/**
 * Cluster mode's media, in the session's own object store (`OBJECT_STORES.media(session)`): its
 * engine pod writes, every gateway replica serves, and files outlive the pod that received them.
 * Object `<session>/<id>`. The bucket's TTL is the lifetime: JetStream removes expired files
 * itself, and a read past the `expiresAt` written at put time answers null even before it does.
 * A bucket per session is what lets NATS permissions keep each pod to its own session's files.
 */
export class NatsMediaStore implements MediaStore {
  /** The buckets written to so far (an engine pod's one session). */
  private readonly writing = new Map<string, Promise<ObjectStore>>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly lifetimeMs: number | undefined,
  ) {}

  static open(nc: NatsConnection, options: NatsMediaStoreOptions = {}): Promise<NatsMediaStore> {
    return Promise.resolve(new NatsMediaStore(nc, options.lifetimeMs));
  }

  /**
   * The gateway's part: the session's bucket exists and its TTL is this store's lifetime. Called
   * for every session the gateway sees, so files a pod writes get the configured lifetime.
   */
  async keepLifetime(session: string): Promise<void> {
    const lifetimeMs = this.lifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS;
    await openMediaObjects(this.nc, session, lifetimeMs);
    const stream = objectStoreStream(OBJECT_STORES.media(session));
    const ttl = nanos(lifetimeMs);
    const jsm = await this.nc.jetstreamManager();
    const { config } = await jsm.streams.info(stream);
    // JetStream refuses a duplicate window longer than the max age (objects are not deduplicated anyway).
    const duplicateWindow = Math.min(config.duplicate_window, ttl);
    if (config.max_age !== ttl) await jsm.streams.update(stream, { ...config, max_age: ttl, duplicate_window: duplicateWindow });
  }

  async put(session: string, file: MediaFile): Promise<StoredMedia> {
    return this.putStream(session, { mimetype: file.mimetype, filename: file.filename }, [file.data]);
  }

  /**
   * nats.js writes the chunks as the stream gives them and its info last; when the stream
   * throws, it purges the chunks written, so nothing is kept. It does not wait for each chunk's
   * acknowledgement, so the source waits for the connection to flush every megabyte: a download
   * faster than NATS does not pile up in this process.
   */
  async putStream(session: string, file: MediaFileInfo, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredMedia> {
    const os = await this.bucketToWrite(session);
    // The bucket's TTL now, as the gateway last set it: that is when JetStream removes the file.
    const lifetimeMs = millis((await os.status()).ttl);
    const id = newMediaId();
    const expiresAt = lifetimeMs > 0 ? Date.now() + lifetimeMs : Number.MAX_SAFE_INTEGER;
    const metadata: Record<string, string> = { mimetype: file.mimetype, expiresAt: String(expiresAt) };
    if (file.filename) metadata.filename = file.filename;
    const info = await os.put({ name: objectName(session, id), metadata }, ReadableStream.from(flushedEvery(this.nc, data, FLUSH_BYTES)));
    return { id, session, mimetype: file.mimetype, filename: file.filename, size: info.size, expiresAt };
  }

  async get(session: string, id: string): Promise<{ meta: StoredMedia; data: Buffer } | null> {
    // A read binds only: a file asked for under any session name must not create a bucket.
    const bucket = OBJECT_STORES.media(session);
    if (!(await objectStoreExists(this.nc, bucket))) return null;
    const os = await this.nc.jetstream().views.os(bucket);
    const name = objectName(session, id);
    const info = await os.info(name);
    const metadata = info?.metadata as Partial<MediaMetadata> | undefined;
    if (!info || info.deleted || !metadata?.mimetype || Date.now() >= Number(metadata.expiresAt)) return null;
    const data = await os.getBlob(name);
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

  private bucketToWrite(session: string): Promise<ObjectStore> {
    let bucket = this.writing.get(session);
    if (!bucket) {
      bucket = openMediaObjects(this.nc, session, this.lifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS).catch((error: unknown) => {
        // Try again at the next file (JetStream may come back).
        this.writing.delete(session);
        throw error;
      });
      this.writing.set(session, bucket);
    }
    return bucket;
  }
}

/**
 * Removes every file of a session without its engine pod (the gateway's logout and delete): one
 * purge of its bucket, which stays for the session's next files. Answers how many messages
 * (chunks and metadata) went.
 */
export async function purgeSessionMedia(nc: NatsConnection, session: string): Promise<number> {
  // No bucket means no file was ever stored; opening it here would create it.
  if (!(await objectStoreExists(nc, OBJECT_STORES.media(session)))) return 0;
  const { purged } = await (await nc.jetstreamManager()).streams.purge(objectStoreStream(OBJECT_STORES.media(session)));
  return purged;
}

const objectName = (session: string, id: string) => `${session}/${id}`;

const FLUSH_BYTES = 1024 * 1024;

/** `data` as it comes, waiting for the connection to send what it holds after every `every` bytes. */
async function* flushedEvery(
  nc: NatsConnection,
  data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  every: number,
): AsyncGenerator<Uint8Array, void, undefined> {
  let unflushed = 0;
  for await (const chunk of data) {
    yield chunk;
    unflushed += chunk.length;
    if (unflushed >= every) {
      await nc.flush();
      unflushed = 0;
    }
  }
}
