// Received files: a media message carries a `directPath`; WAWebDownloadManager fetches its bytes
// (here from the backend, which keeps what the phone sent), as whatsapp-web.js's
// `Message.downloadMedia` reads them once `mediaData.mediaStage` is RESOLVED. wa-js's
// `WPP.chat.downloadMedia` asks the message to download (`msg.downloadMedia`) and then reads the
// file from its media data (`mediaData.mediaBlob`, WAWebMediaOpaqueData), as WhatsApp Web keeps it.
(() => {
  const { define, backend, MsgModel } = window.FakeWeb;
  /** Each message's media data, made once: what a download puts there stays (never sent as message data). */
  const mediaDataOf = new WeakMap();
  Object.defineProperty(MsgModel.prototype, 'mediaData', {
    get() {
      if (!this.directPath) return undefined;
      if (!mediaDataOf.has(this)) {
        mediaDataOf.set(this, { mediaStage: 'RESOLVED', mimetype: this.mimetype, size: this.size, filehash: this.filehash, mediaBlob: null });
      }
      return mediaDataOf.get(this);
    },
  });
  const download = async ({ directPath }) => {
    const base64 = await backend.request('media', { directPath });
    if (base64 === null) throw Object.assign(new Error('media gone'), { status: 404 });
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  };
  MsgModel.prototype.downloadMedia = async function downloadMedia() {
    const mediaData = this.mediaData;
    if (!mediaData || mediaData.mediaBlob) return;
    const bytes = await download({ directPath: this.directPath });
    mediaData.mediaBlob = await window.require('WAWebMediaOpaqueData').createFromData(bytes, this.mimetype);
  };
  define('WAWebDownloadManager', () => ({ downloadManager: { downloadAndMaybeDecrypt: download } }));
})();
