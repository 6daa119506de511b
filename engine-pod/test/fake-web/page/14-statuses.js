// Status updates: whatsapp-web.js posts a message to `status@broadcast` with WhatsApp Web's status
// actions (WAWebSendStatusMsgAction: text with its colour and font, or media through
// WAWebMediaUpdateMsg), after WAWebStatusGatingUtils. The backend keeps what was posted.
// As WhatsApp Web does, a text status is a message the action makes with an id of its own (the
// model the library built is dropped), while a media status is the library's model itself; either
// joins Msg and the account's own status (`Status.getMyStatus()`, 27-status-revoke.js).
(() => {
  const { define, backend, wire, Model, Collection, MsgKey, MsgModel } = window.FakeWeb;
  const { Msg, Status } = window.require('WAWebCollections');
  const me = () => window.FakeWeb.me.pn;

  /** The account's own status (WhatsApp Web's StatusV3 model), made on first use. */
  Status.getMyStatus = () => Status.get(me()) ?? Status.add(new Model({ id: me(), msgs: new Collection(MsgModel), t: 0 }))[0];
  function posted(msg) {
    Status.getMyStatus().msgs.add(msg);
    Status.getMyStatus().set({ t: msg.t });
    Msg.add(msg);
  }

  define('WAWebStatusGatingUtils', () => ({ canCheckStatusRankingPosterGating: () => false }));
  // A function module: fills a status message's media fields from its prepared media.
  define('WAWebMediaUpdateMsg', () => (data, mediaOptions) => Object.assign(data, mediaOptions.toJSON ? mediaOptions.toJSON() : mediaOptions));
  define('WAWebSendStatusMsgAction', () => ({
    sendStatusTextMsgAction: async ({ text, color, font }) => {
      const id = new MsgKey({ fromMe: true, remote: 'status@broadcast', id: MsgKey.newIdSync() });
      const t = Math.floor(Date.now() / 1000);
      const msg = new MsgModel({ id, type: 'chat', body: text, t, from: me(), to: 'status@broadcast', isNewMsg: true, backgroundColor: color, font });
      await backend.request('status', { status: { type: 'text', id: id._serialized, text, color, font } });
      posted(msg);
    },
    sendStatusMediaMsgAction: async (msg, mediaUpdate) => {
      const data = {};
      mediaUpdate(data);
      await backend.request('status', { status: { ...wire(msg), ...JSON.parse(JSON.stringify(data)) } });
      msg.set({ ...data, isNewMsg: true });
      posted(msg);
    },
  }));
})();
