// The page's link to its backend, the test's FakeWhatsAppWeb server: one WebSocket, JSON messages
// `{type, ...}` both ways, and requests that the backend answers (`{type: 'reply', rid, result |
// error}`). Messages sent before the socket opens wait for it.
(() => {
  const handlers = new Map();
  const pending = new Map();
  const queue = [];
  let nextRid = 1;
  const socket = new WebSocket(window.__FAKE_WEB__.backend);
  socket.addEventListener('open', () => {
    for (const text of queue.splice(0)) socket.send(text);
  });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'reply') {
      const waiting = pending.get(message.rid);
      pending.delete(message.rid);
      if (!waiting) return;
      if (message.error) waiting.reject(new Error(message.error));
      else waiting.resolve(message.result);
      return;
    }
    const handler = handlers.get(message.type);
    if (!handler) {
      console.error(`fake WhatsApp Web: no handler for ${message.type}`);
      return;
    }
    Promise.resolve()
      .then(() => handler(message))
      .catch((error) => console.error(`fake WhatsApp Web: ${message.type} failed`, error));
  });
  function send(type, payload = {}) {
    const text = JSON.stringify({ type, ...payload });
    if (socket.readyState === WebSocket.OPEN) socket.send(text);
    else queue.push(text);
  }
  window.FakeWeb.backend = {
    on: (type, handler) => handlers.set(type, handler),
    send,
    /** A request the backend answers; resolves with its result. */
    request: (type, payload = {}) =>
      new Promise((resolve, reject) => {
        const rid = nextRid++;
        pending.set(rid, { resolve, reject });
        send(type, { ...payload, rid });
      }),
  };
})();
