// Calls: WAWebCallCollection, whose internal Map whatsapp-web.js watches for incoming calls (a
// call offer is a `set` on it), and declining one, which the library does with a raw stanza
// (WAWap's `wap` and `generateId`, WADeprecatedSendIq's `deprecatedCastStanza`). The backend
// gets every stanza the page casts and reads the call rejections out of them.
(() => {
  const { define, Emitter, backend } = window.FakeWeb;

  // The library takes the collection's first own Map for its index: so the events live apart.
  const events = new Emitter();
  const CallCollection = { _index: new Map(), on: (...args) => events.on(...args), off: (...args) => events.off(...args) };
  // Other readers of call offers (26-wa-js-calls.js) add themselves here.
  const offerListeners = [];
  window.FakeWeb.onCallOffer = (listener) => offerListeners.push(listener);
  backend.on('call', ({ call }) => {
    CallCollection._index.set(call.id, { outgoing: false, canHandleLocally: true, webClientShouldHandle: true, ...call });
    for (const listener of offerListeners) listener(call);
  });
  define('WAWebCallCollection', () => CallCollection);

  define('WAWap', () => ({
    wap: (tag, attrs, content) => ({ tag, attrs, content: content ?? null }),
    generateId: () => `${Date.now()}.${Math.floor(Math.random() * 1e6)}`,
  }));
  define('WADeprecatedSendIq', () => ({ deprecatedCastStanza: (stanza) => backend.request('stanza', { stanza }) }));
})();
