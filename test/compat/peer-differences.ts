/**
 * Where this gateway answers an operation of the peer's document otherwise than the document
 * says, on purpose or for now, each with its reason. The compatibility test (peer-compat.test.ts)
 * fails on any difference not listed here and on a listed one that no longer occurs: serve an
 * operation, and its line goes.
 */
export type PeerDifference =
  /** No route: answered 404 (or 405 where the path has other methods). */
  | { readonly differs: 'not-served'; readonly reason: string }
  /** Served, with another status than the document's success. */
  | { readonly differs: 'status'; readonly status: number; readonly reason: string }
  /** Served with the documented status, with a body the document's schema refuses. */
  | { readonly differs: 'schema'; readonly reason: string };

export const PEER_DIFFERENCES: Readonly<Record<string, PeerDifference>> = {
  'POST /api/apps': {
    differs: 'status',
    status: 422,
    reason:
      "the body made from the schema asks for a `chatwoot` app (the enum's first kind): this build has the calls app only, and names it in the 422",
  },
  'PUT /api/apps/{id}': {
    differs: 'status',
    status: 422,
    reason: 'as POST /api/apps: the body made from the schema asks for a `chatwoot` app',
  },
  'GET /api/{session}/auth/passkey/challenge': {
    differs: 'status',
    status: 422,
    reason:
      "the test's session pairs by QR, not passkey: passkey steps answer 422 WRONG_STATUS outside PASSKEY_REQUIRED (test/contract/passkey.test.ts covers them in their states); a peer extension the spec adds",
  },
  'POST /api/{session}/auth/passkey': { differs: 'status', status: 422, reason: 'as the passkey challenge: only in status PASSKEY_REQUIRED' },
  'GET /api/{session}/auth/passkey/confirmation': {
    differs: 'status',
    status: 422,
    reason: 'as the passkey challenge: only in status PASSKEY_CONFIRMATION_REQUIRED',
  },
  'POST /api/{session}/auth/passkey/confirm': {
    differs: 'status',
    status: 422,
    reason: 'as the passkey challenge: only in status PASSKEY_CONFIRMATION_REQUIRED',
  },
  'GET /api/keys': {
    differs: 'schema',
    reason:
      "keys are write-only (DESIGN invariant 4): the list never carries `key`, which the peer's schema requires; the key is shown once, when made",
  },
  'PUT /api/keys/{id}': { differs: 'status', status: 404, reason: 'the document gives no key id: the id made up for it names no key' },
  'DELETE /api/keys/{id}': { differs: 'status', status: 404, reason: 'the document gives no key id: the id made up for it names no key' },
  'POST /api/sendText': {
    differs: 'schema',
    reason:
      "message record: `participant`, `media` and `replyTo` are null where the spec makes them so (a direct chat, no file, no reply) and `mediaUrl` is left out without a file; the peer's schema types each non-null and requires `mediaUrl` (docs: where the spec and the peer disagree)",
  },
  'POST /api/forwardMessage': { differs: 'schema', reason: 'message record, as POST /api/sendText' },
  'POST /api/sendPollVote': {
    differs: 'status',
    status: 400,
    reason: "the document's example votes on a message that is not a poll; the vote is refused naming `pollMessageId`",
  },
  'GET /api/messages': { differs: 'schema', reason: 'message record, as POST /api/sendText' },
  'POST /api/sendLinkPreview': {
    differs: 'status',
    status: 400,
    reason: 'the document gives no `url`: the required string made from its schema is no http(s) URL',
  },
  'GET /api/{session}/chats/{chatId}/messages': { differs: 'schema', reason: 'message record, as POST /api/sendText' },
  'GET /api/{session}/chats/{chatId}/messages/{messageId}': { differs: 'schema', reason: 'message record, as POST /api/sendText' },
  'POST /api/{session}/events': { differs: 'schema', reason: 'message record, as POST /api/sendText' },
  'PUT /api/{session}/labels/chats/{chatId}': {
    differs: 'status',
    status: 400,
    reason:
      "the document's example puts label 1 on the chat, and the test deleted label 1 one operation before (DELETE /labels/{labelId}): a label the session does not have is refused naming `labels[0].id`",
  },
  'DELETE /api/{session}/channels/{id}': {
    differs: 'status',
    status: 422,
    reason:
      "the document's example id names a channel the account does not own, and only a channel's owner may delete it (test/contract/channels.test.ts deletes its own)",
  },
  'GET /api/{session}/channels/{id}/messages/preview': { differs: 'schema', reason: 'message record (of each post), as POST /api/sendText' },
  'POST /api/{session}/status/voice': {
    differs: 'status',
    status: 400,
    reason:
      "the body asks to `convert` the document's example file, and the test's file server answers the same few bytes for every path, which no ffmpeg reads as audio; the 400 names `file` (test/contract/media-convert.test.ts converts real files)",
  },
  'POST /api/{session}/status/video': {
    differs: 'status',
    status: 400,
    reason: 'as POST .../status/voice: the example file to `convert` is no video',
  },
  'POST /api/{session}/status/delete': {
    differs: 'status',
    status: 400,
    reason: 'the body made from the schema has no `id` (the document requires none), and a delete must name the status; the 400 names `id`',
  },
  'GET /api/{session}/groups': {
    differs: 'schema',
    reason:
      "an array of group records (spec 2.8), as the peer's engines answer and its Python client reads it (a list); the document types the answer only as `object`",
  },
  'POST /api/{session}/groups/join': {
    differs: 'status',
    status: 400,
    reason:
      'the test points every URL of a body at its loopback file server, so the invite link becomes `http://127.0.0.1:<port>/<code>`, not a WhatsApp invite link: refused naming `body.code` (test/contract/groups.test.ts joins by link and by code)',
  },
  'GET /api/{session}/groups/{id}/picture': {
    differs: 'schema',
    reason: '`url` is null while the group has no picture, as the peer answers it too; the document types `url` as a string',
  },
  'GET /api/screenshot': {
    differs: 'status',
    status: 422,
    reason:
      "the test's session is SANDBOX, which has no browser page: screenshots are WEBJS's (engine-pod/test/webjs/webjs-screenshot.test.ts), as the peer's are its browser engines'",
  },
  'GET /api/server/debug/cpu': {
    differs: 'not-served',
    reason: 'off unless SWITCHBOARD_DEBUG_ROUTES=true (admin only; gateway/test/server tests it): the test runs a gateway as configured by default',
  },
  'GET /api/server/debug/heapsnapshot': {
    differs: 'not-served',
    reason: 'off unless SWITCHBOARD_DEBUG_ROUTES=true, as GET /api/server/debug/cpu',
  },
  'GET /api/server/debug/browser/trace/{session}': {
    differs: 'not-served',
    reason: 'not built: a trace of the Chromium a WEBJS session drives',
  },
  'POST /api/{session}/media/convert/voice': {
    differs: 'status',
    status: 400,
    reason:
      'the body made from the schema is empty (the document requires neither `url` nor `data`): a conversion needs a file, and the 400 names `url` (test/contract/media-convert.test.ts converts real files)',
  },
  'POST /api/{session}/media/convert/video': {
    differs: 'status',
    status: 400,
    reason: 'as POST .../media/convert/voice: the body made from the schema names no file',
  },
  'POST /mcp': {
    differs: 'status',
    status: 400,
    reason:
      "the document gives no body: an MCP request is a JSON-RPC message, and an empty POST is refused naming what to send; with one, the MCP server answers as the protocol says (200), not the peer's framework default 201 (test/contract/mcp.test.ts drives it with the SDK's client)",
  },
};

/**
 * Where the interface spec (shared/spec/interface-spec.md) and the peer document disagree: the
 * spec wins, and docs/compatibility.md says so case by case.
 */
export const SPEC_OVER_PEER: readonly { readonly what: string; readonly choice: string }[] = [
  {
    what: '`participant`, `media` and `replyTo` of a message record',
    choice:
      'null in a direct chat, without a file and without a reply: spec 6.2 has `participant` null in direct chats and spec 2.5 `media` null; the peer types all three non-null, and requires `participant`',
  },
  {
    what: 'Message `timestamp`',
    choice:
      'whole Unix seconds. Spec 2.5 allows a fraction, the peer types it a number, and typed clients of the peer parse an integer: whole seconds satisfy all three',
  },
  {
    what: 'Deprecated `mediaUrl` of a message',
    choice:
      'sent beside `media.url`, with the same address, when the message has `media`; left out otherwise, as the peer itself does, though its schema lists it as required (spec 2.5 has only `media`, null without a file)',
  },
  {
    what: '`environment` of the event envelope',
    choice:
      "spec 2.4's `tier`, `version`, `engine`, and the peer's `platform` and `worker.id` (the engine pod in cluster mode, the gateway's host name in local mode: a string in both: the peer's document allows null, which its generated Python client waha-py refuses); `browser` only on browser engines, as the spec makes it optional, where the peer requires it",
  },
  {
    what: 'Group acknowledgements (`message.ack.group`)',
    choice:
      "spec 6.2 names them `message.ack` (its group variant), and so they are sent; they are also sent as `message.ack.group`, the peer's name, to the webhooks and `/ws` clients whose filter names it. `*` leaves it out, so a `*` subscriber gets each acknowledgement once",
  },
  {
    what: '`limit=0` in `GET /api/{session}/chats/{chatId}/messages` and `GET /api/messages`',
    choice:
      "spec 4.5 requires `limit` (default 10) and says nothing of 0. In the peer's source, 0 sets no limit on its default engine (WEBJS: whatsapp-web.js loads no earlier messages and cuts nothing) and gives an empty list from NOWEB's SQLite store (`LIMIT 0`); its n8n node sends 0 by default. Here 0 sets no limit of its own: the largest page (1000 records), not a 400",
  },
  {
    what: 'A cleared chat (`DELETE /api/{session}/chats/{chatId}/messages`)',
    choice:
      "its messages leave the history, so its messages list is empty as on the phone; the chats lists, which are read from that history, leave it out until its next message, where the peer's engines keep listing it with no last message",
  },
  {
    what: 'Creating a session under a name that is taken',
    choice: '422, as the peer answers (the spec does not say); it was 409 before',
  },
  {
    what: '`presence` of the session info',
    choice:
      "the peer requires an object there (the spec does not show the member): an empty object, as this build does not track the account's own presence",
  },
  {
    what: 'API keys in `GET /api/keys`',
    choice: 'never carry the key itself: secrets are write-only here and a key is shown once, when made; the peer lists each key with its value',
  },
];
