// Statuses as WPPConnect's wa-js posts them (its src/status/): a message to status@broadcast sent
// like any other (05-messages.js's addAndSendMsgToChat, which the backend takes), its id made with
// WhatsApp Web's `randomHex`, which wa-js finds by that export; deleted by WAWebRevokeStatusAction
// (wa-js finds it by that id), which tells the backend the status is revoked.
(() => {
  const { define, backend, widOf } = window.FakeWeb;
  define('WAWebRandomHex', () => ({
    randomHex: (size) =>
      [...crypto.getRandomValues(new Uint8Array(size))]
        .map((byte) => byte.toString(16).padStart(2, '0'))
        .join('')
        .toUpperCase(),
  }));
  define('WAWebRevokeStatusAction', () => ({
    sendStatusRevokeMsgAction: async (_statusOwner, msg) => {
      await backend.request('revoke', { msgId: msg.id._serialized });
      const me = window.FakeWeb.me.pn;
      msg.set({ protocolMessageKey: msg.id, revokeSender: widOf(me), body: undefined, type: 'revoked', subtype: 'sender_revoke' });
    },
  }));
})();
