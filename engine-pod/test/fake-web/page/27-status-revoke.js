// Taking back one's own status (whatsapp-web.js's `revokeStatusMessage`, wa-js's `WPP.status.remove`):
// WAWebRevokeStatusAction tells the servers, and the message becomes a revoked one, as any revoked
// message does. wa-js passes the account's status from StatusV3Store, which may hold no messages.
(() => {
  const { define, backend } = window.FakeWeb;
  define('WAWebRevokeStatusAction', () => ({
    sendStatusRevokeMsgAction: async (status, msg) => {
      await backend.request('status-revoke', { msgId: msg.id._serialized });
      status?.msgs?.remove(msg);
      msg.set({ protocolMessageKey: msg.id, revokeSender: window.FakeWeb.me.pn, body: undefined, type: 'revoked', subtype: 'sender_revoke' });
    },
  }));
})();
