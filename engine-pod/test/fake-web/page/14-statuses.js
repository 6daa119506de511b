// Status updates: whatsapp-web.js posts a message to `status@broadcast` with WhatsApp Web's status
// actions (WAWebSendStatusMsgAction: text with its colour and font, or media through
// WAWebMediaUpdateMsg), after WAWebStatusGatingUtils. The backend keeps what was posted.
(() => {
  const { define, backend, wire } = window.FakeWeb;
  define('WAWebStatusGatingUtils', () => ({ canCheckStatusRankingPosterGating: () => false }));
  // A function module: fills a status message's media fields from its prepared media.
  define('WAWebMediaUpdateMsg', () => (data, mediaOptions) => Object.assign(data, mediaOptions.toJSON ? mediaOptions.toJSON() : mediaOptions));
  define('WAWebSendStatusMsgAction', () => ({
    sendStatusTextMsgAction: ({ text, color, font }) => backend.request('status', { status: { type: 'text', text, color, font } }),
    sendStatusMediaMsgAction: async (msg, mediaUpdate) => {
      const data = {};
      mediaUpdate(data);
      await backend.request('status', { status: { ...wire(msg), ...JSON.parse(JSON.stringify(data)) } });
    },
  }));
})();
