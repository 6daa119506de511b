// A private invitation (invite v4) to someone WhatsApp would not add to a new group (their privacy
// lets others add them only by invitation): whatsapp-web.js's createGroup adds them to the
// contacts (`Contact.gadd`) and sends the invitation into their chat with
// WAWebChatSendMessages.sendGroupInviteMessage, with the code WhatsApp answered for them. The
// backend keeps the invitation. The fake's `Chat.find` makes no chat: the invitation goes into a
// chat the page has.
(() => {
  const { define, backend } = window.FakeWeb;
  const { Contact } = window.require('WAWebCollections');
  Contact.gadd = (wid) => Contact.get(wid) ?? Contact.add({ id: wid })[0];
  define('WAWebChatSendMessages', () => ({
    sendGroupInviteMessage: async (chat, group, subject, code, expiration) => {
      if (!chat) throw new Error('fake WhatsApp Web: no chat to send the group invitation into');
      await backend.request('group-invite-v4', { to: chat.id._serialized, group, subject, code, expiration });
      return { messageSendResult: 'OK' };
    },
  }));
})();
