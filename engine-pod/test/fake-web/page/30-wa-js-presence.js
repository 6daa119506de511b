// Other accounts' presence, as WhatsApp Web keeps it and wa-js reads it (the WPP engine's
// presence.subscribe and presence.update): the presence collection's models (`Presence`: `isOnline`,
// `hasData`, its `chatstate`, a group's members' `chatstates`), a chat's `presence`, and subscribing
// through WAWebContactPresenceBridge, which asks the backend; the backend answers the contact's
// presence then, and pushes each later change (`presence`), applied as WhatsApp Web's
// WAWebChangePresenceHandlerAction does. wa-js hears `change:chatstate.type` on the collection.
(() => {
  const { define, backend, collections, Model, Collection, widOf } = window.FakeWeb;
  const presences = window.require('WAWebPresenceCollection').PresenceCollectionImpl;
  /** How long WhatsApp Web shows a contact typing or recording without hearing from them again. */
  const CHATSTATE_EXPIRES_MS = 25_000;

  class Chatstate extends Model {}
  class ChatstateCollection extends Collection {
    constructor() {
      super(Chatstate);
    }
    gadd(id) {
      return this.get(id) ?? this.add({ id: widOf(id) })[0];
    }
  }
  class Presence extends Model {
    constructor(attributes) {
      super({ isOnline: false, hasData: false, isSubscribed: false, ...attributes });
      this.chatstate = new Chatstate({ id: this.id });
      this.chatstates = new ChatstateCollection();
      // A nested model's change is its parent's `change:chatstate.<attr>`, as in WhatsApp Web, and so its collection's.
      this.chatstate.on('change:type', (chatstate, value, previous) => {
        this.trigger('change:chatstate.type', chatstate, value, previous);
        this.collection?.trigger('change:chatstate.type', chatstate, value, previous);
      });
    }
    get isGroup() {
      return this.id.isGroup();
    }
    get isUser() {
      return this.id.isUser();
    }
    subscribe() {
      return window.require('WAWebContactPresenceBridge').subscribePresence(this.id);
    }
    delete() {
      this.collection?.remove(this);
    }
  }
  presences.modelClass = Presence;
  presences.gadd = (id) => presences.get(id) ?? presences.add(new Presence({ id: widOf(id) }))[0];
  presences.find = async (id) => {
    const presence = presences.gadd(id);
    await presence.subscribe();
    return presence;
  };
  define('WAWebPresenceModel', () => ({ Presence, Chatstate }));
  define('WAWebChatstateModel', () => ({ Chatstate, ChatstateCollectionImpl: ChatstateCollection }));

  // A chat's presence is the collection's model for its id (whatsapp-web.js never reads it).
  Object.defineProperty(collections.Chat.modelClass.prototype, 'presence', {
    configurable: true,
    get() {
      return presences.gadd(this.id);
    },
  });

  /** The chat states the servers send, as WhatsApp Web names them on its chat state model. */
  const CHATSTATES = { composing: 'typing', recording: 'recording_audio', paused: 'idle' };
  const active = (type) => type === 'typing' || type === 'recording_audio';

  /** One presence or chat state from the servers (`kind` as they send it), applied to the chat's presence model. */
  function heard({ id, kind, participant, lastSeen }) {
    const presence = presences.gadd(id);
    // wa-js reports a change only of a presence with data: set before the chat state changes.
    presence.set({ hasData: true, isSubscribed: true });
    if (kind === 'available' || kind === 'unavailable') {
      presence.set({ isOnline: kind === 'available' });
      presence.chatstate.set({ t: lastSeen ?? undefined, deny: lastSeen === null, type: kind });
      return;
    }
    const idle = CHATSTATES[kind] === 'idle';
    const type = idle ? (presence.isOnline ? 'available' : 'unavailable') : CHATSTATES[kind];
    const target = presence.isGroup ? presence.chatstates.gadd(participant) : presence.chatstate;
    if (idle && !active(target.type)) return;
    target.set({ type });
    if (target.expireTimerId != null) clearTimeout(target.expireTimerId);
    target.expireTimerId = active(type)
      ? setTimeout(() => target.set({ type: presence.isOnline ? 'available' : 'unavailable' }), CHATSTATE_EXPIRES_MS)
      : undefined;
    // The group's own chat state follows its members', which is what wa-js listens to.
    if (presence.isGroup) presence.chatstate.set({ type });
  }

  define('WAWebContactPresenceBridge', () => ({
    subscribePresence: async (wid) => {
      const serialized = widOf(wid)._serialized;
      const now = await backend.request('presence-subscribe', { id: serialized });
      presences.gadd(wid).set({ isSubscribed: true });
      if (now) heard({ id: serialized, ...now });
    },
  }));
  backend.on('presence', heard);
})();
