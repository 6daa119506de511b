// Event messages: whatsapp-web.js builds an `event_creation` message itself and sends it through
// WAWebSendMsgChatAction (05-messages.js); for an event with a call it first asks
// WAWebGenerateEventCallLink for a WhatsApp call link, as WhatsApp Web does: any call type but
// `voice` makes a video call link. The backend makes the links and keeps them.
(() => {
  const { define, backend } = window.FakeWeb;
  define('WAWebGenerateEventCallLink', () => ({
    // WhatsApp Web answers nothing when the link cannot be made.
    createEventCallLink: (startTime, callType) =>
      backend.request('call-link', { startTime, kind: callType === 'voice' ? 'voice' : 'video' }).catch(() => undefined),
  }));
})();
