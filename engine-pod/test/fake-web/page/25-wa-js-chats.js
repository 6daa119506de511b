// What wa-js and WPPConnect's WAPI read of a whole chat, beyond what whatsapp-web.js does: the
// chat's pending actions (`chat.promises`: wa-js awaits the delete or clear it started there), its
// messages' load state (`chat.msgs.msgLoadState.noEarlierMsgs`) and `chat.loadEarlierMsgs()`,
// which WAPI repeats until the phone has no older messages.
(() => {
  const { collections, Collection } = window.FakeWeb;
  const ChatModel = collections.Chat.modelClass;

  Object.defineProperty(ChatModel.prototype, 'promises', {
    configurable: true,
    get() {
      this._promises ??= {};
      return this._promises;
    },
  });
  Object.defineProperty(Collection.prototype, 'msgLoadState', {
    configurable: true,
    get() {
      this._msgLoadState ??= { noEarlierMsgs: false, isLoadingEarlierMsgs: false };
      return this._msgLoadState;
    },
  });
  ChatModel.prototype.loadEarlierMsgs = async function () {
    const state = this.msgs.msgLoadState;
    state.isLoadingEarlierMsgs = true;
    try {
      const msgs = await window.require('WAWebChatLoadMessages').loadEarlierMsgs({ chat: this });
      if (msgs.length === 0) state.noEarlierMsgs = true;
      return msgs;
    } finally {
      state.isLoadingEarlierMsgs = false;
    }
  };
})();
