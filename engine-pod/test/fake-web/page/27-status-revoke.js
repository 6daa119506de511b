// Taking back one's own status (whatsapp-web.js's `revokeStatusMessage`): WAWebRevokeStatusAction
// tells the servers, and the message becomes a revoked one, as any revoked message does.
(() => {
  const { define, backend } = window.FakeWeb;
  define('WAWebRevokeStatusAction', () => ({
    sendStatusRevokeMsgAction: async (status, msg) => {
      await backend.request('status-revoke', { msgId: msg.id._serialized });
      status.msgs.remove(msg);
      msg.set({ protocolMessageKey: msg.id, revokeSender: window.FakeWeb.me.pn, body: undefined, type: 'revoked', subtype: 'sender_revoke' });
    },
  }));
})();
