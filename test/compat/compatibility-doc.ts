import { BUILT_ENGINES, ENGINE_CATALOG, type EngineOp } from '@switchboard/protocol';
import type { PeerOperation } from './peer-document.js';
import { MODE_DIFFERENCES } from './mode-differences.js';
import { PEER_DIFFERENCES, SPEC_OVER_PEER } from './peer-differences.js';

export const COMPATIBILITY_DOC = new URL('../../docs/compatibility.md', import.meta.url);

/**
 * The engine command each served operation of the peer's document becomes. The matrix takes from
 * the engine catalog which engines carry each op out.
 */
const ENGINE_OPS: Readonly<Record<string, readonly EngineOp[]>> = {
  'GET /api/{session}/auth/qr': ['auth.qr'],
  'POST /api/{session}/auth/request-code': ['auth.requestCode'],
  'GET /api/{session}/auth/passkey/challenge': ['auth.passkey.challenge'],
  'POST /api/{session}/auth/passkey': ['auth.passkey.submit'],
  'GET /api/{session}/auth/passkey/confirmation': ['auth.passkey.confirmation'],
  'POST /api/{session}/auth/passkey/confirm': ['auth.passkey.confirm'],
  'GET /api/sessions/{session}/me': ['me'],
  'GET /api/{session}/profile': ['profile.get'],
  'PUT /api/{session}/profile/name': ['profile.setName'],
  'PUT /api/{session}/profile/status': ['profile.setStatus'],
  'PUT /api/{session}/profile/picture': ['profile.setPicture'],
  'DELETE /api/{session}/profile/picture': ['profile.deletePicture'],
  'POST /api/sendText': ['send.text'],
  'GET /api/sendText': ['send.text'],
  'POST /api/reply': ['send.text'],
  'POST /api/sendImage': ['send.media'],
  'POST /api/sendFile': ['send.media'],
  'POST /api/sendVoice': ['send.media'],
  'POST /api/sendVideo': ['send.media'],
  'POST /api/send/link-custom-preview': ['send.linkCustomPreview'],
  'POST /api/sendLinkPreview': ['send.linkCustomPreview'],
  'POST /api/sendButtons': ['send.buttons'],
  'POST /api/sendList': ['send.list'],
  'POST /api/forwardMessage': ['message.forward'],
  'POST /api/sendSeen': ['chat.seen'],
  'POST /api/startTyping': ['chat.typing'],
  'POST /api/stopTyping': ['chat.typing'],
  'PUT /api/reaction': ['message.react'],
  'PUT /api/star': ['message.star'],
  'POST /api/sendPoll': ['send.poll'],
  'POST /api/sendPollVote': ['send.pollVote'],
  'POST /api/sendLocation': ['send.location'],
  'POST /api/sendContactVcard': ['send.contactVcard'],
  'POST /api/send/buttons/reply': ['send.buttonReply'],
  'GET /api/checkNumberStatus': ['account.checkNumber'],
  'GET /api/contacts/check-exists': ['account.checkNumber'],
  'GET /api/contacts/all': ['contacts.list'],
  'GET /api/contacts': ['contacts.get'],
  'GET /api/{session}/contacts/{id}': ['contacts.get'],
  'GET /api/contacts/about': ['contacts.about'],
  'GET /api/contacts/profile-picture': ['contacts.picture'],
  'POST /api/contacts/block': ['contacts.block'],
  'POST /api/contacts/unblock': ['contacts.unblock'],
  'PUT /api/{session}/contacts/{chatId}': ['contacts.update'],
  'GET /api/{session}/new-message-id': ['account.newMessageId'],
  'DELETE /api/{session}/chats/{chatId}': ['chat.delete'],
  'DELETE /api/{session}/chats/{chatId}/messages': ['chat.clearMessages'],
  'POST /api/{session}/chats/{chatId}/archive': ['chat.archive'],
  'POST /api/{session}/chats/{chatId}/unarchive': ['chat.archive'],
  'POST /api/{session}/chats/{chatId}/unread': ['chat.unread'],
  'GET /api/{session}/chats/{chatId}/picture': ['chat.picture'],
  'POST /api/{session}/chats/{chatId}/messages/read': ['chat.read'],
  'PUT /api/{session}/chats/{chatId}/messages/{messageId}': ['message.edit'],
  'DELETE /api/{session}/chats/{chatId}/messages/{messageId}': ['message.delete'],
  'POST /api/{session}/chats/{chatId}/messages/{messageId}/pin': ['message.pin'],
  'POST /api/{session}/chats/{chatId}/messages/{messageId}/unpin': ['message.pin'],
  'POST /api/{session}/groups': ['group.create'],
  'GET /api/{session}/groups': ['group.list'],
  'GET /api/{session}/groups/join-info': ['group.joinInfo'],
  'POST /api/{session}/groups/join': ['group.join'],
  'GET /api/{session}/groups/count': ['group.list'],
  'POST /api/{session}/groups/refresh': ['group.refresh'],
  'GET /api/{session}/groups/{id}': ['group.get'],
  'DELETE /api/{session}/groups/{id}': ['group.delete'],
  'POST /api/{session}/groups/{id}/leave': ['group.leave'],
  'GET /api/{session}/groups/{id}/picture': ['group.picture'],
  'PUT /api/{session}/groups/{id}/picture': ['group.setPicture'],
  'DELETE /api/{session}/groups/{id}/picture': ['group.deletePicture'],
  'PUT /api/{session}/groups/{id}/description': ['group.setDescription'],
  'PUT /api/{session}/groups/{id}/subject': ['group.setSubject'],
  'PUT /api/{session}/groups/{id}/settings/security/info-admin-only': ['group.setSetting'],
  'GET /api/{session}/groups/{id}/settings/security/info-admin-only': ['group.settings'],
  'PUT /api/{session}/groups/{id}/settings/security/messages-admin-only': ['group.setSetting'],
  'GET /api/{session}/groups/{id}/settings/security/messages-admin-only': ['group.settings'],
  'GET /api/{session}/groups/{id}/invite-code': ['group.inviteCode'],
  'POST /api/{session}/groups/{id}/invite-code/revoke': ['group.revokeInvite'],
  'GET /api/{session}/groups/{id}/participants': ['group.get'],
  'GET /api/{session}/groups/{id}/participants/v2': ['group.get'],
  'POST /api/{session}/groups/{id}/participants/add': ['group.participants'],
  'POST /api/{session}/groups/{id}/participants/remove': ['group.participants'],
  'POST /api/{session}/groups/{id}/admin/promote': ['group.participants'],
  'POST /api/{session}/groups/{id}/admin/demote': ['group.participants'],
  'GET /api/{session}/labels': ['labels.list'],
  'POST /api/{session}/labels': ['labels.create'],
  'PUT /api/{session}/labels/{labelId}': ['labels.update'],
  'DELETE /api/{session}/labels/{labelId}': ['labels.delete'],
  'GET /api/{session}/labels/chats/{chatId}': ['labels.ofChat'],
  'PUT /api/{session}/labels/chats/{chatId}': ['labels.setForChat'],
  'GET /api/{session}/labels/{labelId}/chats': ['labels.chats'],
  'POST /api/{session}/status/text': ['status.text'],
  'POST /api/{session}/status/image': ['status.media'],
  'POST /api/{session}/status/voice': ['status.media'],
  'POST /api/{session}/status/video': ['status.media'],
  'POST /api/{session}/status/delete': ['status.delete'],
  'GET /api/{session}/status/new-message-id': ['account.newMessageId'],
  'GET /api/{session}/channels': ['channels.list'],
  'POST /api/{session}/channels': ['channels.create'],
  'DELETE /api/{session}/channels/{id}': ['channels.delete'],
  'GET /api/{session}/channels/{id}': ['channels.get'],
  'GET /api/{session}/channels/{id}/messages/preview': ['channels.preview'],
  'POST /api/{session}/channels/{id}/follow': ['channels.follow'],
  'POST /api/{session}/channels/{id}/unfollow': ['channels.unfollow'],
  'POST /api/{session}/channels/{id}/mute': ['channels.mute'],
  'POST /api/{session}/channels/{id}/unmute': ['channels.unmute'],
  'POST /api/{session}/channels/search/by-view': ['channels.search'],
  'POST /api/{session}/channels/search/by-text': ['channels.search'],
  'POST /api/{session}/presence': ['presence.set'],
  'GET /api/{session}/presence': ['presence.list'],
  'GET /api/{session}/presence/{chatId}': ['presence.get'],
  'POST /api/{session}/presence/{chatId}/subscribe': ['presence.subscribe'],
  'POST /api/{session}/calls/reject': ['call.reject'],
  'POST /api/{session}/events': ['send.event'],
  'GET /api/screenshot': ['session.screenshot'],
};

/**
 * The served operations the gateway answers itself, from its own stores, with no engine command:
 * every engine has them. An operation in neither list fails the doc's generation, so a new route
 * cannot show ✓ for every engine by being forgotten here.
 */
const GATEWAY_ANSWERED: ReadonlySet<string> = new Set([
  'POST /api/keys',
  'GET /api/keys',
  'POST /api/keys/media',
  'POST /api/keys/control',
  'PUT /api/keys/{id}',
  'DELETE /api/keys/{id}',
  'GET /api/sessions',
  'POST /api/sessions',
  'GET /api/sessions/{session}',
  'PUT /api/sessions/{session}',
  'DELETE /api/sessions/{session}',
  'POST /api/sessions/{session}/start',
  'POST /api/sessions/{session}/stop',
  'POST /api/sessions/{session}/logout',
  'POST /api/sessions/{session}/restart',
  'POST /api/sessions/start',
  'POST /api/sessions/stop',
  'POST /api/sessions/logout',
  'GET /api/messages',
  'GET /api/{session}/chats',
  'GET /api/{session}/chats/overview',
  'POST /api/{session}/chats/overview',
  'GET /api/{session}/chats/{chatId}/messages',
  'GET /api/{session}/chats/{chatId}/messages/{messageId}',
  // The directory's fixed lists: the same for every session (gateway/src/routes/channels.ts).
  'GET /api/{session}/channels/search/views',
  'GET /api/{session}/channels/search/countries',
  'GET /api/{session}/channels/search/categories',
  'GET /api/{session}/lids',
  'GET /api/{session}/lids/count',
  'GET /api/{session}/lids/{lid}',
  'GET /api/{session}/lids/pn/{phoneNumber}',
  'GET /ping',
  'GET /health',
  'GET /api/server/version',
  'GET /api/server/environment',
  'GET /api/server/status',
  'POST /api/server/stop',
  'GET /api/server/debug/cpu',
  'GET /api/server/debug/heapsnapshot',
  'GET /api/version',
  // ffmpeg in the gateway (gateway/src/routes/media-convert.ts).
  'POST /api/{session}/media/convert/voice',
  'POST /api/{session}/media/convert/video',
  'GET /api/apps',
  'POST /api/apps',
  'GET /api/apps/{id}',
  'PUT /api/apps/{id}',
  'DELETE /api/apps/{id}',
  'POST /mcp',
]);

/** Which engines do an operation: ✓ each op in the engine's catalog entry, — not served here. */
function cells(operation: PeerOperation): string[] {
  if (PEER_DIFFERENCES[operation.key]?.differs === 'not-served') return BUILT_ENGINES.map(() => '—');
  const ops = ENGINE_OPS[operation.key] ?? (GATEWAY_ANSWERED.has(operation.key) ? [] : undefined);
  if (!ops) throw new Error(`${operation.key} is served but named neither in ENGINE_OPS nor in GATEWAY_ANSWERED (test/compat/compatibility-doc.ts)`);
  return BUILT_ENGINES.map((engine) => (ops.every((op) => ENGINE_CATALOG[engine].operations.includes(op)) ? '✓' : '422'));
}

const escape = (text: string) => text.replaceAll('|', '\\|');

export function renderCompatibility(operations: readonly PeerOperation[]): string {
  const served = operations.filter((operation) => PEER_DIFFERENCES[operation.key]?.differs !== 'not-served');
  const differences = operations.filter((operation) => PEER_DIFFERENCES[operation.key]);
  const lines = [
    '# Compatibility with the peer product',
    '',
    '<!-- Generated by test/compat/peer-compat.test.ts from the engine catalog (protocol/src/engine-catalog.ts)',
    '     and test/compat/peer-differences.ts: UPDATE_COMPATIBILITY_DOC=1 pnpm exec vitest run test/compat -->',
    '',
    'Clients, bots and workflows written for the most used product of this interface read its published OpenAPI document',
    '(`shared/reference/peer-openapi.json` beside this repository). The compatibility test',
    '(`test/compat/peer-compat.test.ts`) calls every operation of that document on this gateway (SANDBOX, in local and in cluster mode) with',
    "the document's example request, and checks the status and that the answer validates against the document's schema.",
    '',
    `This build serves **${served.length} of ${operations.length}** operations of that document.`,
    '',
    '## Engine × operation',
    '',
    "✓: the engine carries the operation out; 422: the engine cannot (its catalog entry lacks the operation's engine command, and",
    'the gateway answers 422 before anything travels); —: not served by this build (see the differences below).',
    '',
    `| operation | ${BUILT_ENGINES.join(' | ')} |`,
    `|---|${BUILT_ENGINES.map(() => '---').join('|')}|`,
    ...operations.map((operation) => `| \`${operation.key}\` | ${cells(operation).join(' | ')} |`),
    '',
    '## Differences from the peer document',
    '',
    'Each operation this gateway answers otherwise than the peer document says, and why. The test fails on any other',
    'difference, and on one listed here that no longer occurs.',
    '',
    '| operation | difference | reason |',
    '|---|---|---|',
    ...differences.map((operation) => {
      const difference = PEER_DIFFERENCES[operation.key]!;
      const what = difference.differs === 'status' ? `status ${difference.status}` : difference.differs;
      return `| \`${operation.key}\` | ${what} | ${escape(difference.reason)} |`;
    }),
    '',
    '## Differences in one mode only',
    '',
    'The test runs in both modes; where one answers otherwise than the list above (`test/compat/mode-differences.ts`):',
    '',
    ...modeLines(),
    '',
    '## Where the spec and the peer disagree',
    '',
    'The interface spec (`shared/spec/interface-spec.md`) wins over the peer document; each case:',
    '',
    ...SPEC_OVER_PEER.map((entry) => `- **${entry.what}**: ${entry.choice}`),
    '',
  ];
  return lines.join('\n');
}

function modeLines(): string[] {
  const entries = (['local', 'cluster'] as const).flatMap((mode) =>
    Object.entries(MODE_DIFFERENCES[mode]).map(([key, difference]) => {
      const what = difference.differs === 'status' ? `status ${difference.status}` : difference.differs;
      return `- ${mode} mode, \`${key}\`: ${what}; ${difference.reason}`;
    }),
  );
  return entries.length > 0 ? entries : ['None: both modes answer every operation alike.'];
}
