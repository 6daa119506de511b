// Contacts and presence: which numbers WhatsApp knows (WAWebQueryExistsJob) and their ids
// (WAWebApiContact), what whatsapp-web.js reads of a contact (WAWebContactGetters,
// WAWebFrontendContactGetters), asks the servers about one (WAWebContactStatusBridge's About,
// WAWebContactProfilePicThumbBridge's picture), saving a contact (WAWebSaveContactAction),
// blocking (WAWebBlockContactAction), the account's presence (WAWebPresenceChatAction) and chat
// states (WAWebChatStateBridge). The backend answers and keeps what the page told it.
(() => {
  const { define, backend, collections, widOf } = window.FakeWeb;

  /** A request the backend refused is a server error to the library (its `ServerStatusCodeError`). */
  const ask = (type, payload) =>
    backend.request(type, payload).catch((error) => {
      throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError' });
    });
  const serialized = (wid) => widOf(wid)._serialized;

  // Ids and numbers: this fake's contacts have phone numbers only (no lid), and WhatsApp tells which exist.
  define('WAWebQueryExistsJob', () => ({
    queryWidExists: async (wid) => {
      const found = await backend.request('exists', { id: serialized(wid) });
      return found ? { wid: widOf(found.wid) } : null;
    },
    // wa-js knows the module by this second look-up beside queryWidExists.
    queryPhoneExists: async (phone) => {
      const found = await backend.request('exists', { id: serialized(phone) });
      return found ? { wid: widOf(found.wid) } : null;
    },
  }));
  define('WAWebApiContact', () => ({
    getCurrentLid: () => null,
    getPhoneNumber: (wid) => widOf(wid),
    getAlternateUserWid: () => null,
    // wa-js's look-up of the LID <-> phone number cache: the fake's accounts have no LIDs.
    lidPnCache: { getPhoneNumber: () => undefined, getCurrentLid: () => undefined, getLidEntry: () => undefined },
  }));
  define('WAWebLidMigrationUtils', () => ({ toPn: (wid) => wid }));
  define('WAWebContactGetters', () => ({
    getIsMe: (contact) => contact.id.equals(window.FakeWeb.me.pn),
    getIsUser: (contact) => contact.id.isUser(),
    getIsGroup: (contact) => contact.id.isGroup(),
    getIsWAContact: (contact) => Boolean(contact.isWAContact),
    getUserid: (contact) => contact.id.user,
    getVerifiedName: (contact) => contact.verifiedName,
    getVerifiedLevel: (contact) => contact.verifiedLevel,
    getStatusMute: (contact) => Boolean(contact.statusMute),
    getName: (contact) => contact.name,
    getShortName: (contact) => contact.shortName,
    getPushname: (contact) => contact.pushname,
    getIsEnterprise: (contact) => Boolean(contact.isEnterprise),
  }));
  define('WAWebFrontendContactGetters', () => ({ getIsMyContact: (contact) => Boolean(contact.isMyContact) }));

  define('WAWebContactStatusBridge', () => ({
    getStatus: ({ wid }) => ask('contact-about', { id: serialized(wid) }),
    setMyStatus: (about) => ask('contact-my-about', { about }),
  }));
  define('WAWebContactProfilePicThumbBridge', () => ({
    requestProfilePicFromServer: (chat) => ask('contact-picture', { id: serialized(chat.id) }),
    // The picture as the library made it (a data URL or base64 JPEG); the backend answers where it is.
    sendSetPicture: (wid, thumbnail, picture) => ask('contact-set-picture', { id: serialized(wid), picture: String(picture) }),
    requestDeletePicture: (wid) => ask('contact-delete-picture', { id: serialized(wid) }),
  }));

  // Every account and group has a picture thumb, made on first look-up (the library reads it
  // before it sets or deletes the picture); whether there is a picture, and whether the account
  // may change it, is the backend's to say.
  const thumbs = collections.ProfilePicThumb;
  const thumbOf = thumbs.get.bind(thumbs);
  thumbs.get = (id) => thumbOf(id) ?? (id ? thumbs.add({ id: widOf(id), canSet: () => true, canDelete: () => true })[0] : undefined);
  thumbs.find = async (id) => thumbs.get(id);

  define('WAWebBlockContactUtils', () => ({ getContactToBlockOnlyUseIfNoAssociatedChat: (contact) => contact }));
  async function setBlocked(contact, blocked) {
    await ask('contact-block', { id: contact.id._serialized, blocked });
    contact.set({ isContactBlocked: blocked });
    if (blocked) collections.Blocklist.add({ id: contact.id });
    else collections.Blocklist.remove(contact.id);
  }
  define('WAWebBlockContactAction', () => ({
    blockContact: ({ contact }) => setBlocked(contact, true),
    unblockContact: (contact) => setBlocked(contact, false),
  }));

  // Saving a contact (WAWebSaveContactAction): its name as WhatsApp Web makes it from the first and
  // last names; the servers keep it and sync it back to the page as the contact's new name.
  define('WAWebSaveContactAction', () => ({
    saveContactAction: async ({ firstName, lastName, phoneNumber, syncToAddressbook }) => {
      const fullName = firstName && lastName ? `${firstName} ${lastName}` : firstName || lastName;
      const id = serialized(phoneNumber);
      await ask('contact-save', { id, fullName, shortName: firstName || lastName, syncToAddressbook });
    },
  }));

  define('WAWebPresenceChatAction', () => ({
    sendPresenceAvailable: () => ask('contact-presence', { presence: 'available' }),
    sendPresenceUnavailable: () => ask('contact-presence', { presence: 'unavailable' }),
  }));
  const chatState = (state) => (wid) => ask('contact-chat-state', { chat: serialized(wid), state });
  define('WAWebChatStateBridge', () => ({
    sendChatStateComposing: chatState('composing'),
    sendChatStateRecording: chatState('recording'),
    sendChatStatePaused: chatState('paused'),
  }));
})();
