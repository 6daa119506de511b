// What can be done to a message: react (WAWebSendReactionMsgAction; reactions reach the library
// through WAWebAddonReactionTableMode.reactionTableMode.bulkUpsert, which it wraps), vote
// (WAWebPollsSendVoteMsgAction; votes through WAWebAddonPollVoteTableMode), forward
// (WAWebChatForwardMessage), edit (WAWebSendMessageEditAction), revoke, delete and star (WAWebCmd's
// Cmd), pin (WAWebSendPinMessageAction), and the checks before them (WAWebMsgActionCapability);
// vCard parsing for cards sent as text.
// Each action is reported to the backend, and the phone side can do the same to the account.
(() => {
  const { define, backend, MsgKey, MsgModel, widOf, chatFor, receive, wire } = window.FakeWeb;
  const { Msg } = window.require('WAWebCollections');
  const { Cmd } = window.require('WAWebCmd');
  const me = () => window.FakeWeb.me.pn;

  // Looked up at each call, not kept: the library replaces bulkUpsert with its own wrapper.
  const reactionTable = { reactionTableMode: { bulkUpsert: async (rows) => rows } };
  const pollVoteTable = { pollVoteTableMode: { bulkUpsert: async (rows) => rows } };
  define('WAWebAddonReactionTableMode', () => reactionTable);
  define('WAWebAddonPollVoteTableMode', () => pollVoteTable);

  /** A reaction row as WhatsApp Web stores it. */
  function reactionRow({ id, parent, sender, text, t }) {
    return {
      id,
      reactionParentKey: parent,
      reactionText: text,
      reactionTimestamp: t,
      author: undefined,
      from: widOf(sender),
      orphan: 0,
      orphanReason: null,
      read: false,
      ack: 1,
    };
  }
  function selfKey(chat) {
    return new MsgKey({ fromMe: true, remote: chat, id: MsgKey.newIdSync() });
  }

  define('WAWebSendReactionMsgAction', () => ({
    sendReactionToMsg: async (msg, reaction) => {
      const id = selfKey(msg.id.remote);
      await backend.request('react', { msgId: msg.id._serialized, reaction, id: id._serialized });
      msg.set({ hasReaction: reaction !== '' });
      await reactionTable.reactionTableMode.bulkUpsert([reactionRow({ id, parent: msg.id, sender: me(), text: reaction, t: Date.now() })]);
      return { messageSendResult: 'OK' };
    },
  }));
  backend.on('reaction', async ({ id, parent, sender, text }) => {
    await reactionTable.reactionTableMode.bulkUpsert([
      reactionRow({ id: MsgKey.fromString(id), parent: MsgKey.fromString(parent), sender, text, t: Date.now() }),
    ]);
  });

  function voteRow({ id, parent, sender, localIds, t }) {
    return {
      id,
      pollUpdateParentKey: parent,
      t,
      from: widOf(sender),
      author: undefined,
      sender: widOf(sender)._serialized,
      selectedOptionLocalIds: localIds,
      senderTimestampMs: t,
    };
  }
  define('WAWebPollsSendVoteMsgAction', () => ({
    sendVote: async (msg, localIds) => {
      const ids = [...localIds];
      const id = selfKey(msg.id.remote);
      await backend.request('vote', { msgId: msg.id._serialized, localIds: ids, id: id._serialized });
      await pollVoteTable.pollVoteTableMode.bulkUpsert([voteRow({ id, parent: msg.id, sender: me(), localIds: ids, t: Date.now() })]);
    },
  }));
  backend.on('vote', async ({ id, parent, sender, localIds }) => {
    await pollVoteTable.pollVoteTableMode.bulkUpsert([
      voteRow({ id: MsgKey.fromString(id), parent: MsgKey.fromString(parent), sender, localIds, t: Date.now() }),
    ]);
  });

  /** A copy of a message sent by this account to a chat (forwards). */
  async function sendCopy(chat, original, extra) {
    const id = selfKey(chat.id);
    const { id: _id, from: _from, to: _to, ack: _ack, t: _t, collection: _c, ...content } = original.serialize();
    const msg = new MsgModel({
      ...content,
      id,
      from: me(),
      to: chat.id,
      ack: 0,
      t: Math.floor(Date.now() / 1000),
      isNewMsg: true,
      local: true,
      ...extra,
    });
    chat.msgs.add(msg);
    Msg.add(msg);
    await backend.request('send', { msg: wire(msg) });
    msg.set({ ack: Math.max(msg.ack, 1) });
    return msg;
  }
  define('WAWebChatForwardMessage', () => ({
    forwardMessages: async ({ chat, msgs }) => {
      for (const original of msgs) await sendCopy(chat, original, { isForwarded: true, forwardingScore: (original.forwardingScore ?? 0) + 1 });
      return { messageSendResult: 'OK' };
    },
  }));

  define('WAWebSendMessageEditAction', () => ({
    sendMessageEdit: async (msg, content) => {
      const edit = selfKey(msg.id.remote);
      await backend.request('edit', { msgId: msg.id._serialized, body: content });
      msg.set({ latestEditMsgKey: edit, latestEditSenderTimestampMs: Date.now(), ...(msg.directPath ? { caption: content } : { body: content }) });
    },
  }));
  // The phone edits or revokes a message: what WhatsApp Web does with the protocol message.
  backend.on('edit', ({ id, body }) => {
    const msg = Msg.get(id);
    msg?.set({ latestEditMsgKey: selfKey(msg.id.remote), latestEditSenderTimestampMs: Date.now(), body });
  });
  function revoke(msg, by) {
    msg.set({ protocolMessageKey: msg.id, revokeSender: by, body: undefined, type: 'revoked', subtype: 'sender_revoke' });
  }
  backend.on('revoke', ({ id, by }) => {
    const msg = Msg.get(id);
    if (msg) revoke(msg, widOf(by));
  });

  Cmd.sendRevokeMsgs = async (chat, { list }) => {
    for (const msg of list) {
      await backend.request('revoke', { msgId: msg.id._serialized });
      revoke(msg, me());
    }
  };
  Cmd.sendDeleteMsgs = async (chat, { list }) => {
    for (const msg of list) {
      await backend.request('delete', { msgId: msg.id._serialized });
      chat.msgs.remove(msg.id);
      Msg.remove(msg.id);
    }
  };
  Cmd.sendStarMsgs = async (chat, msgs, unstar) => {
    for (const msg of msgs) {
      await backend.request('star', { msgId: msg.id._serialized, star: !unstar });
      msg.set({ star: !unstar });
    }
  };
  Cmd.sendUnstarMsgs = (chat, msgs) => Cmd.sendStarMsgs(chat, msgs, true);

  // Pins (WAWebSendPinMessageAction): action 1 pins for `duration` seconds, 2 unpins. The library
  // sets WAWebPinMsgConstants.getPinExpiryDuration to the duration around the call; a pin the
  // servers refuse is a send result other than OK.
  define('WAWebPinMsgConstants', () => ({ getPinExpiryDuration: () => 7 * 24 * 3600 }));
  define('WAWebSendPinMessageAction', () => ({
    sendPinInChatMsg: async (msg, action, duration) => {
      const pin = action === 1;
      try {
        await backend.request('pin', { msgId: msg.id._serialized, pin, duration: pin ? duration : 0 });
      } catch {
        return { messageSendResult: 'ERROR_UNKNOWN' };
      }
      msg.set({ isPinned: pin });
      return { messageSendResult: 'OK' };
    },
  }));

  define('WAWebMsgActionCapability', () => ({
    canSenderRevokeMsg: (msg) => msg.id.fromMe,
    canAdminRevokeMsg: () => false,
    canStarMsg: () => true,
    canEditText: (msg) => msg.id.fromMe && msg.type === 'chat',
    canEditCaption: (msg) => msg.id.fromMe && Boolean(msg.directPath),
    canForwardMsg: () => true,
    canReactToMessage: () => true,
    canPinMessage: () => true,
    // wa-js asks before quoting a message in any send (`quotedMsg`).
    canReplyMsg: (msg) => msg.canReply(),
  }));

  define('WAWebVcardParsingUtils', () => ({
    parseVcard: (text) => {
      const fn = /^FN:(.*)$/m.exec(text);
      return fn ? { fn: fn[1] } : null;
    },
  }));
  define('WAWebVcardGetNameFromParsed', () => ({ vcardGetNameFromParsed: (parsed) => parsed.fn }));

  window.FakeWeb.chatFor = chatFor;
  window.FakeWeb.receive = receive;
  window.FakeWeb.revoke = revoke;
})();
