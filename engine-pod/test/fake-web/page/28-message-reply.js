// Whether a message can be replied to (WAWebMsgReply.canReplyMsg), which whatsapp-web.js asks
// before it quotes one in sendMessage: as in WhatsApp Web, a revoked message, or one still waiting
// for its keys, cannot be; the library then sends the reply unquoted.
(() => {
  const { define } = window.FakeWeb;
  define('WAWebMsgReply', () => ({ canReplyMsg: (msg) => !['revoked', 'ciphertext'].includes(msg.type) }));
})();
