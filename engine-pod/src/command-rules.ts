import {
  type EngineCommand,
  type EngineName,
  isBuiltEngine,
  operationName,
  refusedArgumentOf,
  type SessionStatus,
  supportsOperation,
} from '@switchboard/protocol';
import { CommandError } from './command-error.js';

/** The statuses in which an engine command makes sense (spec part 3). */
const NEEDS: Partial<Record<EngineCommand['op'], readonly SessionStatus[]>> = {
  'auth.qr': ['SCAN_QR_CODE'],
  'auth.requestCode': ['SCAN_QR_CODE'],
  'auth.passkey.challenge': ['PASSKEY_REQUIRED'],
  'auth.passkey.submit': ['PASSKEY_REQUIRED'],
  'auth.passkey.confirmation': ['PASSKEY_CONFIRMATION_REQUIRED'],
  'auth.passkey.confirm': ['PASSKEY_CONFIRMATION_REQUIRED'],
  'profile.get': ['WORKING'],
  'profile.setName': ['WORKING'],
  'profile.setStatus': ['WORKING'],
  'profile.setPicture': ['WORKING'],
  'profile.deletePicture': ['WORKING'],
  'account.checkNumber': ['WORKING'],
  'send.text': ['WORKING'],
  'send.media': ['WORKING'],
  'send.linkCustomPreview': ['WORKING'],
  'send.buttons': ['WORKING'],
  'send.list': ['WORKING'],
  'send.poll': ['WORKING'],
  'send.pollVote': ['WORKING'],
  'send.location': ['WORKING'],
  'send.contactVcard': ['WORKING'],
  'send.buttonReply': ['WORKING'],
  'message.forward': ['WORKING'],
  'message.react': ['WORKING'],
  'message.star': ['WORKING'],
  'chat.seen': ['WORKING'],
  'chat.typing': ['WORKING'],
  'chat.delete': ['WORKING'],
  'chat.picture': ['WORKING'],
  'chat.clearMessages': ['WORKING'],
  'chat.read': ['WORKING'],
  'chat.archive': ['WORKING'],
  'chat.unread': ['WORKING'],
  'message.edit': ['WORKING'],
  'message.delete': ['WORKING'],
  'message.pin': ['WORKING'],
  'presence.set': ['WORKING'],
  'presence.list': ['WORKING'],
  'presence.get': ['WORKING'],
  'presence.subscribe': ['WORKING'],
  'call.reject': ['WORKING'],
  'send.event': ['WORKING'],
  'contacts.list': ['WORKING'],
  'contacts.get': ['WORKING'],
  'contacts.about': ['WORKING'],
  'contacts.picture': ['WORKING'],
  'contacts.block': ['WORKING'],
  'contacts.unblock': ['WORKING'],
  'contacts.update': ['WORKING'],
  'labels.list': ['WORKING'],
  'labels.create': ['WORKING'],
  'labels.update': ['WORKING'],
  'labels.delete': ['WORKING'],
  'labels.ofChat': ['WORKING'],
  'labels.setForChat': ['WORKING'],
  'labels.chats': ['WORKING'],
  'channels.list': ['WORKING'],
  'channels.create': ['WORKING'],
  'channels.get': ['WORKING'],
  'channels.delete': ['WORKING'],
  'channels.follow': ['WORKING'],
  'channels.unfollow': ['WORKING'],
  'channels.mute': ['WORKING'],
  'channels.unmute': ['WORKING'],
  'channels.preview': ['WORKING'],
  'channels.search': ['WORKING'],
  'status.text': ['WORKING'],
  'status.media': ['WORKING'],
  'status.delete': ['WORKING'],
};

/** Commands not listed above need a live engine, in any of its live statuses. */
const LIVE: readonly SessionStatus[] = ['STARTING', 'SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED', 'WORKING'];

export function statusesNeededBy(op: EngineCommand['op']): readonly SessionStatus[] {
  return NEEDS[op] ?? LIVE;
}

/**
 * The 422 of a command the session's status does not allow. One wording for the engine host and
 * for a cluster gateway answering for a session whose engine pod is not running.
 */
export function wrongStatusError(session: string, status: SessionStatus, op: EngineCommand['op']): CommandError {
  const expected = statusesNeededBy(op);
  return new CommandError('WRONG_STATUS', `session '${session}' is ${status}; this needs ${expected.join(' or ')}`, {
    session,
    status,
    expected,
  });
}

function simulateNotSupported(session: string, engine: EngineName): CommandError {
  return new CommandError('NOT_SUPPORTED', `simulate works only on SANDBOX sessions; session '${session}' runs ${engine}`, {
    session,
    engine,
  });
}

/**
 * The 422 of a command the session's engine cannot carry out in any status, from protocol's
 * ENGINE_CATALOG, or null. The gateway asks before a command travels (both modes), and the host
 * asks again; an engine this build lacks has no entry (its session runs no engine).
 */
export function notSupportedError(session: string, engine: EngineName, command: EngineCommand): CommandError | null {
  if (!isBuiltEngine(engine)) return null;
  if (!supportsOperation(engine, command.op)) {
    if (command.op === 'sandbox.simulate') return simulateNotSupported(session, engine);
    return notSupported(session, engine, operationName(command));
  }
  const refused = refusedArgumentOf(engine, command);
  return refused ? notSupported(session, engine, refused.what, { field: refused.field }) : null;
}

/**
 * One wording of NOT_SUPPORTED for the table's refusals (an op, or an argument: `extra` names its
 * field) and an engine lacking a method.
 */
export function notSupported(session: string, engine: EngineName, what: string, extra: { readonly field?: string } = {}): CommandError {
  return new CommandError('NOT_SUPPORTED', `engine ${engine} does not support ${what} (session '${session}')`, { session, engine, ...extra });
}
