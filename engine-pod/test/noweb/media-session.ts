import { afterAll, beforeAll } from 'vitest';
import { mediaUrl, NatsMediaStore } from '../../src/index.js';
import { natsForTests } from '../cluster/helpers.js';
import { FakeMediaServer } from '../fake-wa/media-server.js';
import { type PairedSession, pairedSessionForTests } from './harness.js';

export interface MediaSession extends PairedSession {
  /** The fake WhatsApp media host: Baileys downloads received files from it and uploads sent ones to it. */
  readonly media: FakeMediaServer;
  /** The stored file behind a `media.url` the session handed out, from its media store (cluster mode's, on a real nats-server). */
  stored(url: string): ReturnType<NatsMediaStore['get']>;
}

/** The media id at the end of a `media.url` (`mediaUrl`), before its extension. */
const MEDIA_ID = /\/([A-Za-z0-9_-]{22})(\.\w+)?$/;

/**
 * A paired NOWEB session that keeps files, for the tests of a file: `pairedSessionForTests` with
 * the fake media host (named in `media_conn`, so sends can upload) and a media store, closed after
 * the session. `maxBytes`: the media limit (SWITCHBOARD_MEDIA_MAX_BYTES), the default unless set.
 */
export function mediaSessionForTests(session = 'noweb', options: { maxBytes?: number } = {}): MediaSession {
  const nats = natsForTests();
  const files: { media?: FakeMediaServer; store?: NatsMediaStore } = {};
  beforeAll(async () => {
    files.media = await FakeMediaServer.start();
    files.store = await NatsMediaStore.open(nats.nc);
  });
  // After-all hooks run in reverse order (vitest's default): the session closes first, then the
  // media host, then the nats-server.
  afterAll(async () => {
    await files.media?.close();
  });
  const paired = pairedSessionForTests(async (fake) => {
    fake.serveMedia(files.media!);
    return {
      session,
      engine: { mediaHost: files.media!.host },
      media: { store: files.store!, urlFor: (stored) => mediaUrl('https://wa.example.com', stored), ...options },
    };
  });
  return Object.defineProperties(paired, {
    media: { get: () => files.media! },
    stored: { value: (url: string) => files.store!.get(session, MEDIA_ID.exec(url)![1]!) },
  }) as MediaSession;
}
