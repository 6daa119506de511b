// What the account does to a whole chat: archive and mark unread (WAWebCmd's Cmd, as
// whatsapp-web.js calls them), clear its messages (WAWebChatClearBridge; starred ones stay when
// asked) and delete it (WAWebDeleteChatAction). Each is reported to the backend (the phone's
// `actions`) and then done to the page's models, so the library hears of it as from WhatsApp Web:
// `change:archive`, and messages and chats leaving their collections.
(() => {
  const { define, backend, collections } = window.FakeWeb;
  const { Chat, Msg } = collections;
  const { Cmd } = window.require('WAWebCmd');
  const report = (type, chat, fields = {}) => backend.request(type, { chat: chat.id._serialized, ...fields });

  function drop(chat, keep = () => false) {
    for (const msg of chat.msgs.getModelsArray()) {
      if (keep(msg)) continue;
      chat.msgs.remove(msg.id);
      Msg.remove(msg.id);
    }
  }

  // The page shows the change at once, as WhatsApp Web does (wa-js does not wait for the servers).
  Cmd.archiveChat = async (chat, archive) => {
    chat.set({ archive });
    await report('chat-archive', chat, { archive });
  };
  // WhatsApp Web marks a chat unread with an unread count of -1: no message is unread, the chat is.
  Cmd.markChatUnread = async (chat, unread) => {
    await report('chat-unread', chat, { unread });
    chat.set({ unreadCount: unread ? -1 : 0 });
  };
  // Each leaves its promise on the chat (`chat.promises`, 25-wa-js-chats.js), where wa-js awaits it.
  // wa-js tells this sendClear from others by its reading WAWebStateUtils, as WhatsApp Web's does.
  define('WAWebStateUtils', () => ({ unproxy: (model) => model }));
  define('WAWebChatClearBridge', () => ({
    sendClear: (proxied, keepStarred) => {
      const chat = window.require('WAWebStateUtils').unproxy(proxied);
      chat.promises.sendClear = (async () => {
        await report('chat-clear', chat, { keepStarred });
        drop(chat, (msg) => keepStarred && msg.star);
        chat.set({ unreadCount: 0 });
        return { status: 200 };
      })();
      return chat.promises.sendClear;
    },
  }));
  define('WAWebDeleteChatAction', () => ({
    sendDelete: (chat) => {
      chat.promises.sendDelete = (async () => {
        await report('chat-delete', chat);
        drop(chat);
        Chat.remove(chat.id);
        return { status: 200 };
      })();
      return chat.promises.sendDelete;
    },
  }));
})();
