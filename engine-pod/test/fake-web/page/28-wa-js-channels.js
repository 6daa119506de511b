// Channels (newsletters) as WPPConnect's wa-js finds them (its src/newsletter/ and
// src/whatsapp/functions/): the newsletter collection as its own module (`NewsletterStore`), and
// the jobs in the forms wa-js calls, which differ from whatsapp-web.js's (16-channels.js): a
// metadata query by id, deleting by id, joining and leaving through WhatsApp's MEX (GraphQL)
// jobs, the admin-notification mute toggle, and the directory's text search with its categories
// and cursor. wa-js finds each module by its exports, so the names here are ours; each asks the
// same backend as 16-channels.js and keeps the same collections.
(() => {
  const { define, backend, collections, widOf } = window.FakeWeb;
  const { apply, forget, queryResponse } = window.FakeWeb.channels;

  // A refusal as WhatsApp's ServerStatusCodeError, with the status its servers answer: 404 for a
  // channel they do not know.
  const ask = (type, payload) =>
    backend.request(type, payload).catch((error) => {
      const statusCode = /item-not-found/.test(error.message) ? 404 : 400;
      throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError', statusCode, status: statusCode });
    });

  define('WAWebNewsletterCollection', () => ({ default: collections.WAWebNewsletterCollection }));
  // Finding a channel's chat gives the newsletter collection's chat and leaves the chat collection
  // as it is: WhatsApp Web keeps channels out of it, where wa-js 4.6.0's send then looks ("Chat not
  // found in ChatStore", as reported against WhatsApp Web in wppconnect-team/wppconnect-server#2475).
  const findChat = window.require('WAWebFindChatAction');
  const findOrCreateLatestChat = findChat.findOrCreateLatestChat;
  findChat.findOrCreateLatestChat = async (wid, ...rest) => {
    if (!widOf(wid).isNewsletter()) return findOrCreateLatestChat(wid, ...rest);
    return { chat: collections.WAWebNewsletterCollection.get(wid) ?? null, created: false };
  };
  define('WAWebNewsletterMetadataByJidQueryJob', () => ({
    // The servers' answer, in its mixins; the account's channels are kept up to date as well.
    queryNewsletterMetadataByJid: async (jid) => {
      const metadata = await ask('channel-get', { id: jid });
      if (metadata.membershipType !== 'guest') apply(metadata);
      return queryResponse(metadata);
    },
  }));
  define('WAWebNewsletterDeleteJob', () => ({
    deleteNewsletter: async (jid) => {
      await ask('channel-delete', { id: jid });
      forget(jid);
    },
  }));
  define('WAWebMexJoinNewsletterJob', () => ({
    mexJoinNewsletter: async (jid) => apply(await ask('channel-follow', { id: jid })),
  }));
  // A channel left is no longer among the account's chats.
  define('WAWebMexLeaveNewsletterJob', () => ({
    mexLeaveNewsletter: async (jid) => {
      await ask('channel-unfollow', { id: jid });
      forget(jid);
    },
  }));
  define('WAWebNewsletterToggleAdminActivityMuteStateAction', () => ({
    toggleNewsletterAdminActivityMuteStateAction: (wid, muteExpirationValue) =>
      window.require('WAWebNewsletterUpdateUserSettingJob').updateNewsletterUserSetting({
        newsletterJid: wid._serialized,
        type: window.require('WAWebNewsletterModelUtils').ADMIN_NOTIFICATIONS,
        muteExpirationValue,
      }),
  }));
  // The directory's text search (a MEX query): the servers' page of channels and its cursor.
  define('WAWebMexFetchNewsletterDirectorySearchResultsJob', () => ({
    mexFetchNewsletterDirectorySearchResults: async ({ searchText, categories, limit, cursorToken }) => {
      const found = await ask('channel-directory', { search: { searchText, categories, limit, cursor: cursorToken ?? null } });
      return {
        xwa2_newsletters_directory_search: {
          result: found.channels.map((channel) => ({
            id: channel.id,
            thread_metadata: {
              name: { text: channel.name },
              description: { text: channel.description },
              subscribers_count: String(channel.size),
              verification: channel.verified ? 'VERIFIED' : 'UNVERIFIED',
              invite: channel.inviteCode,
              creation_time: String(channel.creationTime),
            },
          })),
          page_info: { has_next_page: found.endCursor !== null, end_cursor: found.endCursor },
        },
      };
    },
  }));
})();
