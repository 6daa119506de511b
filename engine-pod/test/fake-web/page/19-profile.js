// The account's own name (WAWebSetPushnameConnAction, after WAWebConnModel's
// `Conn.canSetMyPushname`, false for a business account, whose name is its business's, as in
// WhatsApp Web) and the older messages of a chat (WAWebChatLoadMessages), which the phone holds
// from before this device was linked.
(() => {
  const { define, backend, MsgModel, collections, chatFor } = window.FakeWeb;
  const { Conn } = window.require('WAWebConnModel');
  Conn.canSetMyPushname = () => !['smba', 'smbi'].includes(Conn.platform);
  define('WAWebSetPushnameConnAction', () => ({
    setPushname: async (name) => {
      await backend.request('profile-name', { name });
      Conn.set({ pushname: name });
    },
  }));

  backend.on('unread', ({ chat, count }) => {
    const model = chatFor(chat);
    model.set({ unreadCount: Math.max(0, model.unreadCount) + count });
  });
  define('WAWebChatLoadMessages', () => ({
    // One page of the chat's messages older than those the page holds, oldest first; none when
    // the phone has no more.
    loadEarlierMsgs: async ({ chat }) => {
      const older = await backend.request('earlier', { chat: chat.id._serialized });
      const msgs = older.map((data) => new MsgModel({ ...data, isNewMsg: false }));
      chat.msgs.add(msgs);
      collections.Msg.add(msgs);
      return msgs;
    },
  }));
})();
