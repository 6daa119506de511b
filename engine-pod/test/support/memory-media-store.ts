import { type MediaStore, mediaUrl, type StoredMedia } from '../../src/index.js';

/** The host's media store, in memory: what the session kept, by media id. */
export function memoryMediaStore() {
  const files = new Map<string, { meta: StoredMedia; data: Buffer }>();
  let next = 0;
  const store: MediaStore = {
    async put(session, file) {
      const meta = {
        id: `media${++next}`,
        session,
        mimetype: file.mimetype,
        filename: file.filename,
        size: file.data.length,
        expiresAt: Date.now() + 60_000,
      };
      files.set(meta.id, { meta, data: file.data });
      return meta;
    },
    async putStream(session, file, data) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of data) chunks.push(chunk);
      return this.put(session, { ...file, data: Buffer.concat(chunks) });
    },
    async get(session, id) {
      const kept = files.get(id);
      return kept?.meta.session === session ? kept : null;
    },
    async purgeSession() {},
  };
  return { store, files, urlFor: (stored: StoredMedia) => mediaUrl('https://sb.example.com', stored) };
}
