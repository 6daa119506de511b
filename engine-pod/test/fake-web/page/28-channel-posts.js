// Posting in a channel the account owns: whatsapp-web.js's sendMessage to a `@newsletter` chat keeps
// the post's record (WAWebMsgDataFromModel, WAWebNewsletterUpdateMsgsRecordsJob) and sends it with
// WAWebNewsletterSendMessageJob, whose answer carries the post's server id. The backend keeps the
// post; one it refuses (the account does not own the channel) fails as WhatsApp's
// `ServerStatusCodeError`, as the other channel requests do (16-channels.js).
(() => {
  const { define, backend, wire } = window.FakeWeb;
  define('WAWebMsgDataFromModel', () => ({ msgDataFromMsgModel: (msg) => msg.serialize() }));
  // The page keeps no message table of its own: the records are the models.
  define('WAWebNewsletterUpdateMsgsRecordsJob', () => ({
    addNewsletterMsgsRecords: async () => undefined,
    updateNewsletterMsgRecord: async () => undefined,
  }));
  define('WAWebNewsletterSendMessageJob', () => ({
    sendNewsletterMessageJob: async ({ msg, type, newsletterJid }) => {
      const answer = await backend.request('channel-send', { id: newsletterJid, kind: type, msg: wire(msg) }).catch((error) => {
        throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError' });
      });
      return { success: true, ack: { t: answer.t }, serverId: answer.serverId };
    },
  }));
})();
