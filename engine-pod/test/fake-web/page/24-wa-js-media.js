// Sent files as wa-js sends them (`WPP.chat.sendFileMessage`, which WPPConnect's `sendFile` calls):
// the file wrapped (WAWebMediaOpaqueData), prepared (`MediaPrep.prepRawMedia`, here the same
// preparation as whatsapp-web.js's, WAWebPrepRawMedia), then `sendToChat`: uploaded through
// WAWebMediaMmsV4Upload's `uploadMedia` (which wa-js wraps) and sent as a media message with its
// direct path (WAWebSendMsgChatAction), on the message wa-js prepared (its id, reply, ...).
(() => {
  const { define } = window.FakeWeb;
  const module = (name) => window.require(name);

  class MediaPrep {
    constructor(type, prepared) {
      this.type = type;
      this._prepared = prepared;
      this._mediaData = null;
    }

    async waitForPrep() {
      this._mediaData ??= await this._prepared;
      return this._mediaData;
    }

    /** The file uploaded, then the message sent: answers the send's result once the servers took it. */
    async sendToChat({ chat, options = {} }) {
      const mediaData = await this.waitForPrep();
      const types = module('WAWebMmsMediaTypes');
      const mediaType = types.castToV4(types.msgToMediaType({ type: mediaData.type, isGif: mediaData.isGif }));
      const mediaObject = module('WAWebMediaStorage').getOrCreateMediaObject(mediaData.filehash);
      // Read at the call, not before: wa-js wraps `uploadMedia` in the module once it is ready.
      const { mediaEntry } = await module('WAWebMediaMmsV4Upload').uploadMedia({ mimetype: mediaData.mimetype, mediaObject, mediaType });
      // wa-js's message names the file as its caption unless one was given: only a given caption is shown.
      // A status comes with no prepared message (wa-js leaves it to WhatsApp Web): keyed here, with the account as participant.
      const { caption: _named, isCaptionByUser: _byUser, ...prepared } = options.productMsgOptions ?? ownStatusMessage(chat);
      const message = {
        ...prepared,
        ...mediaData,
        ...(options.caption ? { caption: options.caption } : {}),
        ...(options.isViewOnce ? { isViewOnce: true } : {}),
        directPath: mediaEntry.directPath,
        deprecatedMms3Url: mediaEntry.deprecatedMms3Url,
        mediaKey: mediaEntry.mediaKey,
        mediaKeyTimestamp: mediaEntry.mediaKeyTimestamp,
        encFilehash: mediaEntry.encFilehash,
      };
      const [, sent] = module('WAWebSendMsgChatAction').addAndSendMsgToChat(chat, message);
      return sent;
    }
  }

  /** The message WhatsApp Web makes for a status with a file it posts: its key, sender and time. */
  function ownStatusMessage(chat) {
    const { MsgKey, me } = window.FakeWeb;
    const id = new MsgKey({ fromMe: true, remote: chat.id, id: MsgKey.newIdSync(), participant: me.pn });
    return { id, from: me.pn, to: chat.id, author: me.pn, t: Math.floor(Date.now() / 1000) };
  }

  define('WAWebMediaPrep', () => ({
    MediaPrep,
    prepRawMedia: (opaque, params) => new MediaPrep(null, module('WAWebPrepRawMedia').prepRawMedia(opaque, params).waitForPrep()),
    // WhatsApp Web's module also uploads catalogue product images; wa-js finds the module by it.
    uploadProductImage: async () => {
      throw new Error('the fake WhatsApp Web has no product catalogue');
    },
  }));
})();
