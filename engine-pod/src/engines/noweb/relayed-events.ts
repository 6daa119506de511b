import type { EngineEventPayload } from '@switchboard/protocol';
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import { rawData } from './message-record.js';

/**
 * The library events relayed as `engine.event`, a debugging aid. Never `creds.update` (it holds
 * the account's private keys) nor Baileys' history sets as they are (large): those go out as
 * `messaging-history.set` with the messages' records (MessageEvents.history), for the history.
 */
const RELAYED = [
  'messages.upsert',
  'messages.update',
  'message-receipt.update',
  'messages.reaction',
  'presence.update',
  'chats.update',
  'contacts.update',
  'groups.upsert',
  'groups.update',
  'group-participants.update',
  'call',
  'labels.edit',
  'labels.association',
  'blocklist.update',
  // The history's LID map learns from it (history-recorder.ts): the interface has no LID event.
  'lid-mapping.update',
  // A chat deleted on the phone (or by this device): the history forgets it (history-recorder.ts),
  // so the chats lists drop it as the phone does; the interface has no chat-deleted event.
  'chats.delete',
] as const satisfies readonly (keyof BaileysEventMap)[];

export function relayedEngineEvents(events: Partial<BaileysEventMap>): EngineEventPayload[] {
  const relayed: EngineEventPayload[] = [];
  const connection = events['connection.update'];
  if (connection) {
    const { qr: _qr, lastDisconnect, ...rest } = connection;
    const error = lastDisconnect?.error as { message?: string; output?: { statusCode?: number } } | undefined;
    const data = { ...rest, ...(error ? { lastDisconnect: { statusCode: error.output?.statusCode, message: error.message } } : {}) };
    relayed.push({ event: 'connection.update', data: rawData(data) });
  }
  for (const event of RELAYED) {
    const value = events[event];
    if (value !== undefined) relayed.push({ event, data: rawData(Array.isArray(value) ? { items: value } : value) });
  }
  return relayed;
}
