// Statuses with a file as wa-js posts them (its src/status/: `sendImageStatus`, `sendVideoStatus`):
// `sendFileMessage` to status@broadcast, whose chat wa-js makes itself from WhatsApp Web's
// `STATUS_JID` (WAJids, 16-channels.js) instead of looking it up; the file then goes as any file
// (24-wa-js-media.js).
// wa-js then waits for WhatsApp Web to register the status: the account's own status (StatusV3)
// names it as its `lastReceivedKey`, as WhatsApp Web does for every status message it adds.
(() => {
  const { Msg, Status } = window.require('WAWebCollections');
  Msg.on('add', (msg) => {
    if (!msg.id?.fromMe || String(msg.id.remote) !== 'status@broadcast') return;
    Status.getMyStatus().set({ t: msg.t, lastReceivedKey: msg.id });
  });
})();
