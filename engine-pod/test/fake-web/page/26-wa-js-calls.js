// Calls as WPPConnect's wa-js sees them (its src/call/): WhatsApp Web's call collection
// (`CallCollectionImpl`, whose instance WPPConnect's onIncomingCall watches for `add`) of call
// models (`proxyName` 'call', `getState()` one of CALL_STATES), filled from the same call offers as
// 12-calls.js's; and declining one as wa-js does without WhatsApp's native VoIP stack: a `call`
// stanza with a `reject` child (WASmax's `smax`, `sendSmaxStanza`), which the backend reads.
(() => {
  const { define, Model, Collection, backend, widOf, Wid } = window.FakeWeb;

  const CALL_STATES = Object.fromEntries(
    [
      'INCOMING_RING',
      'OUTGOING_RING',
      'OUTGOING_CALLING',
      'CONNECTING',
      'CONNECTION_LOST',
      'ACTIVE',
      'HANDLED_REMOTELY',
      'ENDED',
      'REJECTED',
      'REMOTE_CALL_IN_PROGRESS',
      'FAILED',
      'NOT_ANSWERED',
    ].map((state) => [state, state]),
  );
  define('WAWebCallStates', () => ({ CALL_STATES }));

  class CallModel extends Model {
    getState() {
      return this.state;
    }
  }
  CallModel.prototype.proxyName = 'call';
  define('WAWebCallModel', () => ({ default: CallModel, CallModel }));

  class CallCollectionImpl extends Collection {
    constructor() {
      super(CallModel);
      // No call is handled by a native VoIP stack here.
      this.activeCall = null;
    }
    processIncomingCall() {}
  }
  const calls = new CallCollectionImpl();
  define('WAWebCallCollectionImpl', () => ({ CallCollectionImpl, default: calls }));

  window.FakeWeb.onCallOffer((call) =>
    calls.add(
      new CallModel({
        id: call.id,
        peerJid: widOf(call.peerJid),
        isVideo: call.isVideo,
        isGroup: call.isGroup,
        offerTime: Math.floor(Date.now() / 1000),
        outgoing: false,
        state: CALL_STATES.INCOMING_RING,
      }),
    ),
  );

  // A group call's id is on the `call` server; the fake's calls are one-to-one.
  Wid.prototype.isGroupCall ??= function isGroupCall() {
    return this.server === 'call';
  };
  define('WASmaxCallStanza', () => ({
    smax: (tag, attrs, content) => ({ tag, attrs, content: content ?? null }),
    sendSmaxStanza: async (stanza) => {
      await backend.request('stanza', { stanza });
      const reject = (stanza.content ?? []).find((child) => child.tag === 'reject');
      calls.get(reject?.attrs['call-id'])?.set({ state: CALL_STATES.REJECTED });
    },
    ensureE2ESessions: async () => {},
  }));
})();
