// Channels (newsletters): WAWebCollections.WAWebNewsletterCollection's chats, each with its
// `newsletterMetadata` (NewsletterMetadataCollection: name, description, inviteCode, size,
// verified, membershipType, creationTime, as WAWebNewsletterModelUtils maps WhatsApp's answers),
// and the jobs and actions whatsapp-web.js calls to preview, create, delete, follow, unfollow,
// mute and search them. The backend keeps the channels; a channel post arrives as a message in the
// channel's chat. Requests the backend refuses fail as WhatsApp's `ServerStatusCodeError`, which
// the library turns into `false` or `null`.
(() => {
  const { define, Model, Collection, widOf, backend, collections, MsgModel } = window.FakeWeb;
  const { WAWebNewsletterCollection: Newsletters, NewsletterMetadataCollection: Metadata, Msg } = collections;

  class NewsletterMetadataModel extends Model {}
  class NewsletterModel extends Model {
    constructor(attributes) {
      super({ unreadCount: 0, t: 0, isReadOnly: true, mute: { expiration: 0 }, ...attributes });
      this.id = widOf(this.id);
      this.msgs = new Collection(MsgModel);
    }
    get newsletterMetadata() {
      return Metadata.get(this.id);
    }
    // WhatsApp Web's chat models say what they are; wa-js checks it before acting on a channel.
    get isNewsletter() {
      return true;
    }
  }

  // WAWebNewsletterModelUtils' values: a mute is an expiration, -1 (for ever) or 0 (not muted).
  const MUTED_STATE = -1;
  const UNMUTED_STATE = 0;

  /** The channel's metadata as the backend has it now, and its chat in the collection. */
  function apply({ id, muted, ...fields }) {
    const wid = widOf(id);
    const metadata = Metadata.get(wid) ?? Metadata.add(new NewsletterMetadataModel({ id: wid }))[0];
    metadata.set(fields);
    const chat = Newsletters.get(wid) ?? Newsletters.add(new NewsletterModel({ id: wid }))[0];
    chat.set({ name: fields.name, isReadOnly: !['owner', 'admin'].includes(fields.membershipType) });
    if (Boolean(muted) !== (chat.mute.expiration !== UNMUTED_STATE)) chat.set({ mute: { expiration: muted ? MUTED_STATE : UNMUTED_STATE } });
    return chat;
  }
  /** The account no longer has the channel (unfollowed with its local models, or deleted). */
  function forget(wid) {
    Newsletters.remove(wid);
    Metadata.remove(wid);
  }
  backend.on('channels', ({ channels }) => channels.forEach(apply));
  backend.on('channel-post', ({ msg }) => {
    const chat = Newsletters.get(msg.id.remote);
    if (!chat) return;
    const post = new MsgModel({ ...msg, isNewMsg: true });
    chat.msgs.add(post);
    chat.set({ t: post.t, lastReceivedKey: post.id });
    Msg.add(post);
  });
  let creationEnabled = true;
  backend.on('channel-gating', (message) => {
    creationEnabled = message.creationEnabled;
  });

  const ask = (type, payload) =>
    backend.request(type, payload).catch((error) => {
      throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError' });
    });
  const jid = (id) => widOf(id)._serialized;

  /** WhatsApp's answer to a metadata query, in its mixins, as WAWebNewsletterMetadataQueryJob gives it. */
  function queryResponse(metadata) {
    return {
      idJid: metadata.id,
      newsletterCreationTimeMetadataMixin: { creationTimeValue: metadata.creationTime },
      newsletterNameMetadataMixin: { nameElementValue: metadata.name, nameUpdateTime: metadata.creationTime },
      newsletterDescriptionMetadataMixin: {
        descriptionQueryDescriptionResponseMixin: { elementValue: metadata.description, updateTime: metadata.creationTime },
      },
      newsletterInviteLinkMetadataMixin: { inviteCode: metadata.inviteCode },
      newsletterStateMetadataMixin: { stateType: 'active' },
      newsletterSubscribersMetadataMixin: { subscribersCount: metadata.size },
      newsletterVerificationMetadataMixin: { verificationState: metadata.verified ? 'verified' : 'unverified' },
      newsletterMembershipMetadataMixin: { membershipType: metadata.membershipType },
    };
  }

  // For the wa-js modules of the same requests (28-wa-js-channels.js).
  window.FakeWeb.channels = { apply, forget, queryResponse, NewsletterMetadataModel, NewsletterModel };

  // STATUS_JID: the status chat wa-js makes for a status with a file (29-wa-js-status-media.js).
  define('WAJids', () => ({ toNewsletterJid: jid, STATUS_JID: 'status@broadcast' }));
  define('WAWebJidToWid', () => ({ newsletterJidToWid: (value) => widOf(value), userJidToUserWid: (value) => widOf(value) }));
  define('WAWebNewsletterGatingUtils', () => ({
    isNewsletterCreationEnabled: () => creationEnabled,
    getNewsletterDirectoryPageSize: () => 50,
    getMaxSubscriberNumber: () => 10_000,
  }));
  define('WAWebNewsletterModelUtils', () => ({
    ADMIN_NOTIFICATIONS: 'admin',
    MUTED_STATE,
    UNMUTED_STATE,
    // The account's part in a channel known by its invite; the servers answer with it otherwise.
    getRoleByIdentifier: (inviteCode) => Metadata.filter((metadata) => metadata.inviteCode === inviteCode)[0]?.membershipType ?? 'guest',
  }));
  define('WAWebLoadNewsletterPreviewChatAction', () => ({
    loadNewsletterPreviewChat: async (id) => apply(await ask('channel-get', { id: jid(id) })),
  }));
  define('WAWebNewsletterMetadataQueryJob', () => ({
    queryNewsletterMetadataByInviteCode: async (code) => {
      const metadata = await ask('channel-by-invite', { code });
      apply(metadata);
      return queryResponse(metadata);
    },
  }));
  define('WAWebNewsletterCreateQueryJob', () => ({
    createNewsletterQuery: async ({ name, description, picture }) => {
      const metadata = await ask('channel-create', { name, description, picture });
      apply(metadata);
      return queryResponse(metadata);
    },
  }));
  define('WAWebNewsletterDeleteAction', () => ({
    deleteNewsletterAction: async (channel) => {
      await ask('channel-delete', { id: channel.id._serialized });
      forget(channel.id);
    },
  }));
  define('WAWebNewsletterSubscribeAction', () => ({
    subscribeToNewsletterAction: async (channel) => apply(await ask('channel-follow', { id: channel.id._serialized })),
  }));
  define('WAWebNewsletterUnsubscribeAction', () => ({
    unsubscribeFromNewsletterAction: async (channel, { deleteLocalModels }) => {
      const metadata = await ask('channel-unfollow', { id: channel.id._serialized });
      if (deleteLocalModels) forget(channel.id);
      else apply(metadata);
    },
  }));
  define('WAWebNewsletterUpdateUserSettingJob', () => ({
    updateNewsletterUserSetting: async ({ newsletterJid, type, muteExpirationValue }) => {
      if (type !== 'admin') throw new Error(`the fake has no newsletter setting ${type}`);
      const muted = muteExpirationValue === MUTED_STATE;
      await ask('channel-mute', { id: newsletterJid, muted });
      Newsletters.get(newsletterJid)?.set({ mute: { expiration: muteExpirationValue } });
    },
  }));
  // The directory: its answers are chat models of the channels found, not added to the account's.
  define('WAWebNewsletterDirectorySearchAction', () => ({
    fetchNewsletterDirectories: async ({ searchText, countryCodes, view }) => {
      const pageSize = window.require('WAWebNewsletterGatingUtils').getNewsletterDirectoryPageSize();
      const found = await ask('channel-search', { search: { searchText, countryCodes, view, pageSize } });
      return {
        newsletters: found.map(({ id, muted: _muted, ...fields }) => {
          const wid = widOf(id);
          if (!Metadata.get(wid)) Metadata.add(new NewsletterMetadataModel({ id: wid, ...fields }));
          return Newsletters.get(wid) ?? new NewsletterModel({ id: wid, name: fields.name });
        }),
      };
    },
  }));
  define('WAWebL10N', () => ({ getRegion: () => 'US' }));
  // Every ISO 3166-1 region the browser can name: the codes a directory search may filter by.
  define('WAWebCountriesNativeCountryNames', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
    const codes = letters.flatMap((a) => letters.map((b) => a + b)).filter((code) => names.of(code) !== code);
    return { countryCodesIso: Object.fromEntries(codes.map((code) => [code, names.of(code)])) };
  });
})();
