// Sent files: what whatsapp-web.js's processMediaData (and processStickerData) read on the way from
// a base64 file to a message with a `directPath`. The file is wrapped (WAWebMediaOpaqueData),
// prepared into its media data (WAWebPrepRawMedia: kind, filehash), kept by filehash
// (WAWebMediaStorage) and uploaded (WAWebMediaMmsV4Upload, WAWebUploadManager): here to the
// backend, which keeps the bytes the phone side checks and serves them back from the direct path.
(() => {
  const { define, backend } = window.FakeWeb;

  const toBase64 = (buffer) => {
    const bytes = new Uint8Array(buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  };
  const sha256 = async (blob) => toBase64(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));

  /** A file's bytes as WhatsApp Web holds them; JSON leaves it out (a message carries no bytes). */
  class OpaqueData {
    constructor(blob) {
      this._blob = blob;
      this._url = null;
    }
    static async createFromData(data, mimetype) {
      return new OpaqueData(data instanceof Blob ? data : new Blob([data], { type: mimetype }));
    }
    /** The class as wa-js sees it: it reads modules as namespaces, where a module's class is `default`. */
    static get default() {
      return OpaqueData;
    }
    get type() {
      return this._blob.type;
    }
    get size() {
      return this._blob.size;
    }
    blob() {
      return this._blob;
    }
    /** The bytes as a Blob, as wa-js's `WPP.chat.downloadMedia` reads a downloaded file. */
    forceToBlob() {
      return this._blob;
    }
    url() {
      this._url ??= URL.createObjectURL(this._blob);
      return this._url;
    }
    autorelease() {}
    formData() {
      const form = new FormData();
      form.append('file', this._blob);
      return form;
    }
    toJSON() {
      return undefined;
    }
  }

  /** The bytes of files being sent, by filehash (WhatsApp Web's media storage keeps them so). */
  const blobs = new Map();

  /**
   * A file's media data: its fields are own properties (the library spreads them into the
   * message), the bytes are not (`mediaBlob` is kept aside, never sent as message data).
   */
  class MediaData {
    constructor(fields, mediaBlob) {
      Object.assign(this, fields);
      Object.defineProperty(this, 'mediaBlob', { value: mediaBlob, writable: true, enumerable: false });
    }
    set(fields) {
      Object.assign(this, fields);
    }
    toJSON() {
      return { ...this };
    }
  }

  /** The message kind WhatsApp Web makes of a file, as prepRawMedia decides it. */
  function kindOf(mimetype, { asDocument, asSticker, isPtt }) {
    if (asSticker) return 'sticker';
    if (asDocument) return 'document';
    if (mimetype.startsWith('image/')) return 'image';
    if (mimetype.startsWith('video/')) return 'video';
    if (mimetype.startsWith('audio/')) return isPtt ? 'ptt' : 'audio';
    return 'document';
  }

  define('WAWebMediaOpaqueData', () => OpaqueData);
  define('WAWebPrepRawMedia', () => ({
    prepRawMedia: (opaque, params) => ({
      waitForPrep: async () => {
        const blob = opaque.blob();
        const filehash = await sha256(blob);
        blobs.set(filehash, opaque);
        const type = kindOf(blob.type, params);
        return new MediaData(
          {
            type,
            mimetype: blob.type,
            filehash,
            size: blob.size,
            isGif: Boolean(params.asGif),
            // Only a document shows its file name.
            ...(type === 'document' && blob.name ? { filename: blob.name } : {}),
          },
          opaque,
        );
      },
    }),
  }));
  define('WAWebMediaStorage', () => ({
    getOrCreateMediaObject: (filehash) => {
      const object = {
        filehash,
        contentInfo: {},
        consolidate(json) {
          Object.assign(this, json);
        },
      };
      Object.defineProperty(object, 'mediaBlob', { get: () => blobs.get(filehash), enumerable: false });
      return object;
    },
  }));
  define('WAWebMmsMediaTypes', () => ({
    msgToMediaType: ({ type, isGif, isNewsletter }) => `${isNewsletter ? 'newsletter-' : ''}${isGif ? 'gif' : type}`,
    castToV4: (type) => type,
  }));
  define('WAWebMediaDataUtils', () => ({ shouldUseMediaCache: () => false }));
  define('WAWebMediaInMemoryBlobCache', () => ({ InMemoryMediaBlobCache: { put: () => {}, get: () => undefined } }));
  define('WAMediaCalculateFilehash', () => ({ getRandomFilehash: () => toBase64(crypto.getRandomValues(new Uint8Array(32))) }));

  /** The upload: the bytes to the backend, which answers where they are (the direct path). */
  async function upload(blob, mediaType, mimetype) {
    const data = toBase64(await blob.arrayBuffer());
    const { directPath } = await backend.request('upload', { mediaType, mimetype, data });
    return {
      mmsUrl: `https://mmg.whatsapp.net${directPath}`,
      deprecatedMms3Url: `https://mmg.whatsapp.net${directPath}`,
      directPath,
      mediaKey: toBase64(crypto.getRandomValues(new Uint8Array(32))),
      mediaKeyTimestamp: Math.floor(Date.now() / 1000),
      encFilehash: await sha256(blob),
      uploadHash: await sha256(blob),
    };
  }
  const uploadMedia = async ({ mimetype, mediaObject, mediaType }) => {
    const opaque = mediaObject.mediaBlob;
    if (!opaque) throw new Error(`no file kept for ${mediaObject.filehash}`);
    return { mediaEntry: await upload(opaque.blob(), mediaType, mimetype) };
  };
  define('WAWebMediaMmsV4Upload', () => ({ uploadMedia, uploadUnencryptedMedia: uploadMedia }));
  define('WAWebUploadManager', () => ({
    encryptAndUpload: async ({ blob, type }) => {
      const entry = await upload(blob, type, blob.type);
      return { ...entry, url: entry.mmsUrl };
    },
  }));
  define('WAWebStartMediaUploadQpl', () => ({ startMediaUploadQpl: () => ({}) }));
})();
