// What wa-js's message actions look for beyond whatsapp-web.js's (06-message-actions.js): the
// message a reply quotes, the
// reactions model collection it wraps to report reactions (WAWebReactionsMsgAction), the votes
// database it wraps to report votes, the edit
// action its editMessage calls (addAndSendMessageEdit), forwarding to chats
// (WAWebForwardMessagesToChat), the search for a message not loaded, pins (the
// pin collection and enums, the duration as an option), the enums its deleteMessage reads, a message's sender, a chat's
// sendStarMsgs (WPPConnect's WAPI.starMessages), and revokes as WhatsApp Web processes them (a
// protocol message through processMultipleMessages).
(() => {
  const { define, backend, MsgKey, MsgModel, widOf } = window.FakeWeb;
  const { Msg } = window.require('WAWebCollections');

  // Every reaction row stored (sent or received) also reaches the reactions model collection, as
  // one new reaction: wa-js wraps this function (looked up at each call) to report `chat.new_reaction`.
  const reactionsAction = { addOrUpdateReactionsModelCollection: async (data) => data };
  define('WAWebReactionsMsgAction', () => reactionsAction);
  const reactionTable = window.require('WAWebAddonReactionTableMode').reactionTableMode;
  const storeRows = reactionTable.bulkUpsert;
  reactionTable.bulkUpsert = async (rows) => {
    const stored = await storeRows.call(reactionTable, rows);
    for (const row of rows) {
      await window.require('WAWebReactionsMsgAction').addOrUpdateReactionsModelCollection(
        {
          msgKey: row.id.toString(),
          parentMsgKey: row.reactionParentKey.toString(),
          reactionText: row.reactionText,
          senderUserJid: row.from._serialized,
          t: Math.floor(row.reactionTimestamp / 1000),
          orphan: 0,
          orphanReason: null,
          read: false,
        },
        true,
      );
    }
    return stored;
  };

  // Likewise every vote row stored also reaches the votes database (wa-js wraps upsertVotesDb to
  // report `chat.poll_response`).
  define('WAWebPollVoteDbAction', () => ({ upsertVotesDb: async (votes) => votes }));
  const voteTable = window.require('WAWebAddonPollVoteTableMode').pollVoteTableMode;
  const storeVotes = voteTable.bulkUpsert;
  voteTable.bulkUpsert = async (rows) => {
    const stored = await storeVotes.call(voteTable, rows);
    await window.require('WAWebPollVoteDbAction').upsertVotesDb(
      rows.map((row) => ({
        ack: 1,
        msgKey: row.id,
        parentMsgKey: row.pollUpdateParentKey,
        selectedOptionLocalIds: row.selectedOptionLocalIds,
        sender: row.from,
        senderTimestampMs: row.senderTimestampMs,
      })),
    );
    return stored;
  };

  // An edit as wa-js sends it: the protocol message it built (its key is the edit's), applied to the message.
  const editAction = window.require('WAWebSendMessageEditAction');
  editAction.addAndSendMessageEdit = async (msg, edit) => {
    await backend.request('edit', { msgId: msg.id._serialized, body: edit.body });
    const text = msg.directPath ? { caption: edit.caption } : { body: edit.body };
    msg.set({ latestEditMsgKey: edit.id, latestEditSenderTimestampMs: Date.now(), ...text });
  };

  // Where WhatsApp Web looks for a message not loaded in its chat: around it, from the phone. The
  // fake's phone keeps no such messages: the search finds none (wa-js then answers msg_not_found).
  define('WAWebChatMessageSearch', () => ({
    getSearchContext: ({ chat, msgKey }) => ({
      collection: { loadAroundPromise: Promise.resolve(), get: () => undefined },
      key: msgKey,
      chat,
      highlightMsg: true,
    }),
  }));

  // Forwarding through the action behind WhatsApp Web's forward dialog (06's forwardMessages).
  define('WAWebForwardMessagesToChat', () => ({
    forwardMessagesToChats: async (msgs, chats) => {
      for (const chat of chats) await window.require('WAWebChatForwardMessage').forwardMessages({ chat, msgs });
      return true;
    },
  }));

  define('WAWebMsgType', () => ({
    MSG_TYPE: {
      CHAT: 'chat',
      LOCATION: 'location',
      VCARD: 'vcard',
      MULTI_VCARD: 'multi_vcard',
      POLL_CREATION: 'poll_creation',
      PROTOCOL: 'protocol',
      REVOKED: 'revoked',
    },
    SYSTEM_MESSAGE_TYPES: ['gp2', 'notification', 'e2e_notification'],
  }));
  define('WAWebSendMsgResultConstants', () => ({
    SendMsgResult: {
      OK: 'OK',
      ERROR_NETWORK: 'ERROR_NETWORK',
      ERROR_EXPIRED: 'ERROR_EXPIRED',
      ERROR_CANCELLED: 'ERROR_CANCELLED',
      ERROR_UPLOAD: 'ERROR_UPLOAD',
      ERROR_UNKNOWN: 'ERROR_UNKNOWN',
    },
  }));

  // The message a reply quotes, as a model: the one loaded, or one made from the copy the reply
  // carries (wa-js reads it on each new reply).
  define('WAWebQuotedMsgModelUtils', () => ({
    getQuotedMsgObj: (msg) => {
      if (!msg.quotedStanzaID) return undefined;
      const participant = msg.quotedParticipant ? widOf(msg.quotedParticipant) : undefined;
      const fromMe = participant?._serialized === window.FakeWeb.me.pn?._serialized;
      const remote = msg.id.remote;
      const id = new MsgKey({ fromMe, remote, id: msg.quotedStanzaID, participant: remote.isGroup() ? participant : undefined });
      return Msg.get(id) ?? new MsgModel({ ...msg.quotedMsg, id, from: fromMe ? window.FakeWeb.me.pn : (participant ?? remote) });
    },
  }));

  // Starring from the chat, as WPPConnect's own script (WAPI.starMessages) does it.
  const { Cmd } = window.require('WAWebCmd');
  const ChatModel = window.FakeWeb.collections.Chat.modelClass;
  ChatModel.prototype.sendStarMsgs = function (msgs, star) {
    return star ? Cmd.sendStarMsgs(this, msgs) : Cmd.sendUnstarMsgs(this, msgs);
  };

  // Pins as wa-js makes them: the duration as WhatsApp Web's option (newer pages) rather than
  // seconds; the pins of messages found through the message's state (06's sendPinInChatMsg).
  const PIN_SECONDS = { OneDay: 86_400, SevenDays: 604_800, ThirtyDays: 2_592_000 };
  const pinAction = window.require('WAWebSendPinMessageAction');
  const sendPin = pinAction.sendPinInChatMsg;
  pinAction.sendPinInChatMsg = (msg, action, duration, ...rest) =>
    sendPin(msg, action, typeof duration === 'string' ? PIN_SECONDS[duration] : duration, ...rest);
  define('WAWebPinStateConstants', () => ({
    PIN_STATE: { INVALID: 0, PIN: 1, UNPIN: 2 },
    PinExpiryDurationOption: Object.fromEntries(
      ['FiveSeconds', 'FifteenSeconds', 'OneMinute', ...Object.keys(PIN_SECONDS)].map((option) => [option, option]),
    ),
  }));
  // Like Presence's, the module names its one instance `PinInChatCollectionImpl`.
  const pins = new window.FakeWeb.Collection();
  pins.getByParentMsgKey = (key) => {
    const msg = Msg.get(key);
    return msg && msg.isPinned !== undefined ? { parentMsgKey: msg.id, pinType: msg.isPinned ? 1 : 2 } : undefined;
  };
  define('WAWebPinInChatCollection', () => ({ PinInChatCollectionImpl: pins, PinInChatCollection: pins }));

  // The message's sender as a contact: wa-js's deleteMessage revokes only what the account sent.
  Object.defineProperty(MsgModel.prototype, 'senderObj', {
    configurable: true,
    get() {
      const sender = this.id.fromMe ? window.FakeWeb.me.pn : (this.author ?? this.from);
      return { id: sender, isMe: this.id.fromMe };
    },
  });

  // A protocol message (a revoke) is applied, not added: the message collection adds the rest.
  const addMessages = Msg.processMultipleMessages;
  Msg.processMultipleMessages = async (chatId, messages) =>
    addMessages.call(
      Msg,
      chatId,
      messages.filter((data) => data.type !== 'protocol'),
    );
  // The phone revokes a message: WhatsApp Web processes the revoke's protocol message (which wa-js
  // reports as `chat.msg_revoke`), then shows the message as revoked (06-message-actions.js).
  const revoked = window.FakeWeb.revoke;
  backend.on('revoke', async ({ id, by }) => {
    const msg = Msg.get(id);
    if (!msg) return;
    const sender = widOf(by);
    const fromMe = sender._serialized === window.FakeWeb.me.pn?._serialized;
    await Msg.processMultipleMessages(msg.id.remote, [
      {
        type: 'protocol',
        subtype: 'sender_revoke',
        isNewMsg: true,
        id: new MsgKey({ fromMe, remote: msg.id.remote, id: MsgKey.newIdSync() }),
        from: sender,
        to: msg.id.remote,
        author: msg.id.remote.isGroup() ? sender : undefined,
        protocolMessageKey: msg.id,
      },
    ]);
    revoked(msg, sender);
  });
})();
