// Messages waiting for their keys: a `ciphertext` message is what WhatsApp Web shows until the
// sender's phone resends it decryptably; whatsapp-web.js reports it (message_ciphertext), asks
// for the resend after a while (WAWebNonMessageDataRequestPlaceholderMessageResendUtils), and
// reports the message once its type changes. The backend keeps the resend requests.
(() => {
  const { define, backend } = window.FakeWeb;
  define('WAWebNonMessageDataRequestPlaceholderMessageResendUtils', () => ({
    handlePlaceholderMsgsSeen: (msgs) => backend.request('resend', { ids: msgs.map((msg) => msg.id._serialized) }),
  }));
})();
