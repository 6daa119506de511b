// Received files: a media message carries a `directPath`; WAWebDownloadManager fetches its bytes
// (here from the backend, which keeps what the phone sent), as whatsapp-web.js's
// `Message.downloadMedia` reads them once `mediaData.mediaStage` is RESOLVED.
(() => {
  const { define, backend, MsgModel } = window.FakeWeb;
  Object.defineProperty(MsgModel.prototype, 'mediaData', {
    get() {
      return this.directPath ? { mediaStage: 'RESOLVED' } : undefined;
    },
  });
  MsgModel.prototype.downloadMedia = async function downloadMedia() {};
  define('WAWebDownloadManager', () => ({
    downloadManager: {
      downloadAndMaybeDecrypt: async ({ directPath }) => {
        const base64 = await backend.request('media', { directPath });
        if (base64 === null) throw Object.assign(new Error('media gone'), { status: 404 });
        return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
      },
    },
  }));
})();
