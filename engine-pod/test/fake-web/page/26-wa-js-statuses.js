// Statuses as WPPConnect's wa-js posts them (its src/status/): a message to status@broadcast sent
// like any other (05-messages.js's addAndSendMsgToChat, which the backend takes), its id made with
// WhatsApp Web's `randomHex`, which wa-js finds by that export; deleted by WAWebRevokeStatusAction
// (27-status-revoke.js, which wa-js finds by that id and whatsapp-web.js reads too).
(() => {
  const { define } = window.FakeWeb;
  define('WAWebRandomHex', () => ({
    randomHex: (size) =>
      [...crypto.getRandomValues(new Uint8Array(size))]
        .map((byte) => byte.toString(16).padStart(2, '0'))
        .join('')
        .toUpperCase(),
  }));
})();
