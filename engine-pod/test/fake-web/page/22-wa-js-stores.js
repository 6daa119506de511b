// The collections and models as wa-js finds them. WhatsApp Web gives each collection its own class
// (`MsgCollectionImpl`, `ChatCollectionImpl`, ...) in a module that also exports the one instance,
// and each model class a `proxyName` ('msg', 'chat', 'contact'); wa-js searches for those shapes
// and checks the instances with `instanceof`. The instances are the ones WAWebCollections holds
// (05-messages.js, 07-collections.js), so both libraries see the same chats and messages.
(() => {
  const { define, collections, MsgModel, ContactModel, Collection } = window.FakeWeb;
  const ChatModel = collections.Chat.modelClass;

  /** Gives `instance` a class of its own named `<name>Impl`, and defines the module wa-js looks for. */
  function collectionModule(name, instance, extra = {}) {
    const Base = Object.getPrototypeOf(instance).constructor;
    const Impl = { [`${name}Impl`]: class extends Base {} }[`${name}Impl`];
    Object.setPrototypeOf(instance, Impl.prototype);
    define(`WAWeb${name}`, () => ({ [`${name}Impl`]: Impl, [name]: instance, default: instance, ...extra }));
    return instance;
  }
  collectionModule('MsgCollection', collections.Msg);
  collectionModule('ChatCollection', collections.Chat);
  // whatsapp-web.js reads the account's own contact from the same module.
  collectionModule('ContactCollection', collections.Contact, {
    getMeContact: () => (window.FakeWeb.me.pn ? collections.Contact.get(window.FakeWeb.me.pn) : undefined),
  });
  collectionModule('GroupMetadataCollection', collections.GroupMetadata);
  // Labels' module names its one instance `LabelCollectionImpl`, as Presence's does: wa-js reads the store there.
  define('WAWebLabelCollection', () => ({ LabelCollectionImpl: collections.Label, LabelCollection: collections.Label, default: collections.Label }));
  collectionModule('BlocklistCollection', collections.Blocklist);
  collectionModule('ProfilePicThumbCollection', collections.ProfilePicThumb);
  collectionModule('ReactionsCollection', collections.Reactions);
  collectionModule('StatusCollection', collections.Status);
  // Presence's module names its one instance `PresenceCollectionImpl`, unlike the others.
  const presences = new Collection();
  define('WAWebPresenceCollection', () => ({ PresenceCollectionImpl: presences, PresenceCollection: presences }));
  // wa-js reads `processMultipleMessages` on the message collection: how WhatsApp Web adds messages.
  collections.Msg.processMultipleMessages = async (_chatId, messages) => messages.map((data) => window.FakeWeb.receive(data));

  for (const [Model, proxyName, name] of [
    [MsgModel, 'msg', 'Msg'],
    [ChatModel, 'chat', 'Chat'],
    [ContactModel, 'contact', 'Contact'],
  ]) {
    if (!Model) continue;
    Model.prototype.proxyName = proxyName;
    define(`WAWeb${name}Model`, () => ({ [name]: Model, [`${name}Model`]: Model, default: Model }));
  }

  // Backbone's array methods, which wa-js calls on collections.
  for (const method of ['map', 'forEach', 'find', 'some', 'every']) {
    Collection.prototype[method] ??= function (fn) {
      return this.getModelsArray()[method](fn);
    };
  }

  // A chat's presence (WhatsApp Web's PresenceModel): wa-js subscribes to it before a chat state.
  Object.defineProperty(ChatModel.prototype, 'presence', {
    configurable: true,
    get() {
      return { id: this.id, subscribe: async () => {}, chatstate: { type: null } };
    },
  });
  // The chat states the account sends (typing, recording, paused), as WhatsApp Web's ChatPresence.
  define('WAWebChatPresence', () => {
    const bridge = window.require('WAWebChatStateBridge');
    return {
      markComposing: (chat) => bridge.sendChatStateComposing(chat.id),
      markRecording: (chat) => bridge.sendChatStateRecording(chat.id),
      markPaused: (chat) => bridge.sendChatStatePaused(chat.id),
    };
  });

  define('WAWebAck', () => ({
    ACK: {
      MD_DOWNGRADE: -7,
      INACTIVE: -6,
      CONTENT_UNUPLOADABLE: -5,
      CONTENT_TOO_BIG: -4,
      CONTENT_GONE: -3,
      EXPIRED: -2,
      FAILED: -1,
      CLOCK: 0,
      SENT: 1,
      RECEIVED: 2,
      READ: 3,
      PLAYED: 4,
    },
    ACK_STRING: {
      SENDER: 'sender',
      DELIVERY: 'delivery',
      READ: 'read',
      PLAYED: 'played',
      INACTIVE: 'inactive',
      READ_SELF: 'read-self',
      PLAYED_SELF: 'played-self',
    },
  }));
  define('WAWebClock', () => ({
    unixTime: () => Math.floor(Date.now() / 1000),
    unixTimeMs: () => Date.now(),
  }));
})();
