// Chats and messages: WAWebCollections' Msg and Chat, sending (WAWebSendMsgChatAction), read
// receipts (WAWebUpdateUnreadChatAction) and what whatsapp-web.js's sendMessage and serializers
// read on the way (WAWebChatGetters, WALinkify, WAWebFindChatAction, ...).
// A message reaches the page from the backend as plain data (`{id: {fromMe, remote, id,
// participant}, type, body, t, from, to, ...}`); the page turns ids into Wids and MsgKeys.
(() => {
  const { define, Model, Collection, MsgKey, widOf, backend } = window.FakeWeb;

  class MsgModel extends Model {
    constructor(attributes) {
      super(attributes);
      if (!(this.id instanceof MsgKey)) this.id = new MsgKey(this.id);
      // quotedParticipant too: a Wid in WhatsApp Web, which WPPConnect serializes by its _serialized.
      for (const key of ['from', 'to', 'author', 'quotedParticipant']) if (typeof this[key] === 'string') this[key] = widOf(this[key]);
      this.ack ??= 0;
    }
    get mediaObject() {
      return this.directPath ? { type: this.type } : undefined;
    }
    get isEphemeral() {
      return false;
    }
    get isStatusV3() {
      return Boolean(this.id?.remote?.isStatus());
    }
    canReply() {
      return true;
    }
    updateAck(ack) {
      this.set({ ack });
    }
    msgContextInfo() {
      return {
        quotedMsg: this.serialize(),
        quotedStanzaID: this.id.id,
        quotedParticipant: this.author ?? this.from,
        quotedRemoteJid: this.id.remote,
      };
    }
    serialize() {
      const plain = super.serialize();
      plain.id = { fromMe: this.id.fromMe, remote: this.id.remote, id: this.id.id, _serialized: this.id._serialized };
      if (this.id.participant) plain.id.participant = this.id.participant;
      return plain;
    }
  }

  class ChatModel extends Model {
    constructor(attributes) {
      super({ unreadCount: 0, archive: false, pin: 0, t: 0, isReadOnly: false, mute: { expiration: 0 }, ...attributes });
      if (typeof this.id === 'string') this.id = widOf(this.id);
      this.msgs = new Collection(MsgModel);
    }
    get formattedTitle() {
      return this.name ?? this.id?.user;
    }
    get isGroup() {
      return Boolean(this.id?.isGroup());
    }
  }

  const Msg = new Collection(MsgModel);
  Msg.getMessagesById = async (ids) => ({ messages: ids.map((id) => Msg.get(id)).filter(Boolean) });
  const Chat = new Collection(ChatModel);

  function chatFor(id) {
    const wid = widOf(id);
    return Chat.get(wid) ?? Chat.add({ id: wid })[0];
  }

  /** A message comes in (or is sent from the account's phone): it joins its chat, then Msg. */
  function receive(data) {
    const msg = new MsgModel({ ...data, isNewMsg: true });
    const chat = chatFor(msg.id.remote);
    chat.msgs.add(msg);
    if (!msg.id.fromMe) chat.set({ unreadCount: chat.unreadCount + 1, t: msg.t, lastReceivedKey: msg.id });
    Msg.add(msg);
    return msg;
  }
  backend.on('message', ({ msg }) => receive(msg));
  backend.on('ack', ({ ids, ack }) => {
    for (const id of ids) Msg.get(id)?.set({ ack });
  });
  backend.on('msg-update', ({ id, changes }) => Msg.get(id)?.set(changes));

  /** What the backend is told of a message the page sends: plain data, ids serialized. */
  function wire(msg) {
    return JSON.parse(JSON.stringify(msg.serialize()));
  }

  // Later families add their collections to the same object (07-collections.js and on).
  const collections = { Msg, Chat };
  define('WAWebCollections', () => collections);
  window.FakeWeb.collections = collections;
  define('WAWebChatGetters', () => ({
    getIsNewsletter: (chat) => chat.id.isNewsletter(),
    getIsBroadcast: (chat) => chat.id.isBroadcast(),
    getIsGroup: (chat) => chat.id.isGroup(),
  }));
  define('WALinkify', () => {
    const pattern = /\bhttps?:\/\/[^\s]+/g;
    const links = (text) => [...String(text ?? '').matchAll(pattern)].map((m) => ({ href: m[0], url: m[0], suspiciousCharacters: undefined }));
    return { findLinks: links, findLink: (text) => links(text)[0] ?? null };
  });
  define('WAWebFindChatAction', () => ({ findOrCreateLatestChat: async (wid) => ({ chat: chatFor(wid), created: true }) }));
  define('WAWebGetEphemeralFieldsMsgActionsUtils', () => ({ getEphemeralFields: () => ({}) }));
  define('WAWebLinkPreviewChatAction', () => ({ getLinkPreview: async () => null }));
  define('WAWebSendMsgChatAction', () => ({
    addAndSendMsgToChat: (chat, message) => {
      const msg = new MsgModel({ ...message, isNewMsg: true });
      chat.msgs.add(msg);
      chat.set({ t: msg.t });
      Msg.add(msg);
      const sent = backend.request('send', { msg: wire(msg) }).then((result) => {
        msg.set({ ack: Math.max(msg.ack, 1) });
        return { messageSendResult: 'OK', ...result };
      });
      return [Promise.resolve(msg), sent];
    },
  }));
  define('WAWebUpdateUnreadChatAction', () => ({
    // `{chat}` as whatsapp-web.js calls it; `(chat, afterAvailable)` as wa-js calls it at this version.
    sendSeen: async (seen) => {
      const chat = seen.chat ?? seen;
      chat.set({ unreadCount: 0 });
      await backend.request('seen', { chat: chat.id._serialized });
    },
    // As Cmd.markChatUnread (18-chat-actions.js), which wa-js reaches through here: the phone is
    // told, and WhatsApp Web shows the chat as unread (-1).
    markUnread: (chat) => window.require('WAWebCmd').Cmd.markChatUnread(chat, true),
  }));
  window.FakeWeb.MsgModel = MsgModel;
  window.FakeWeb.chatFor = chatFor;
  window.FakeWeb.receive = receive;
  window.FakeWeb.wire = wire;
})();
