import { type DeleteStatusRequest, messageId, type MessageRecord, STATUS_CHAT, statusMessageId, type TextStatus } from '@switchboard/protocol';
import { generateWAMessageFromContent, proto } from '@whiskeysockets/baileys';
import type { OutgoingMedia } from '../../capabilities/chatting.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { EngineContext } from '../../engine.js';
import { toLibraryJid } from './jids.js';
import type { MessageEvents } from './message-events.js';
import { toMessageRecord } from './message-record.js';
import type { Account, Outgoing } from './outgoing.js';
import { type MediaUpload, mediaContent } from './outgoing-content.js';

export interface NowebStoriesDeps {
  readonly context: EngineContext;
  readonly messages: MessageEvents;
  readonly outgoing: Outgoing;
  account(): Account;
  mediaUpload(): MediaUpload;
  /** The contacts the engine knows (`<number>@c.us`), for a status sent without `contacts`. */
  knownContacts(): Promise<string[]>;
}

/*
 * Status updates (stories) on NOWEB: a message to `status@broadcast`, which the library sends as
 * it sends to a group: the content once under the account's sender key (`skmsg`), the key itself
 * to each device of the users in `statusJidList` (the status's viewers, and the account, so that
 * its phone shows it too). Deleting one is a revoke sent the same way.
 */
export class NowebStories {
  constructor(private readonly deps: NowebStoriesDeps) {}

  /** Text on a coloured background, in one of WhatsApp's fonts (the library's `backgroundArgb`, `font`). */
  async sendText(status: TextStatus): Promise<MessageRecord> {
    // As the apps write one: white text on the colour (the library leaves the text colour out).
    const content: proto.IMessage = {
      extendedTextMessage: { text: status.text, backgroundArgb: argb(status.backgroundColor), textArgb: WHITE, font: status.font },
    };
    return this.deps.outgoing.send({ chatId: STATUS_CHAT, id: status.id }, content, { statusJidList: await this.viewers(status.contacts) });
  }

  /** An image or video with its caption, or a voice note on its background colour: uploaded as any file is (outgoing-content.ts). */
  async sendMedia(status: OutgoingMediaStatus): Promise<MessageRecord> {
    const statusJidList = await this.viewers(status.contacts);
    const content = await mediaContent(asMessageMedia(status), this.deps.mediaUpload());
    if (status.kind === 'voice' && content.audioMessage) content.audioMessage.backgroundArgb = argb(status.backgroundColor);
    return this.deps.outgoing.send({ chatId: STATUS_CHAT, id: status.id }, content, {
      media: await this.deps.context.saveMedia(status.file),
      statusJidList,
    });
  }

  /**
   * A revoke (`edit` 7) to everyone the status went to, then `message.revoked` (the library's
   * events skip status@broadcast, so it is made here), with the status as sent when still known.
   */
  async delete(request: DeleteStatusRequest): Promise<void> {
    const account = this.deps.account();
    const statusJidList = await this.viewers(request.contacts);
    const revokedMessageId = statusMessageId(request.id);
    const key = { remoteJid: STATUS_CHAT, fromMe: true, id: revokedMessageId };
    const msg = generateWAMessageFromContent(
      STATUS_CHAT,
      { protocolMessage: { key, type: proto.Message.ProtocolMessage.Type.REVOKE } },
      { userJid: account.jid },
    );
    await this.deps.outgoing.relay(account, STATUS_CHAT, msg, undefined, { statusJidList, additionalAttributes: { edit: '7' } });
    const address = { chatId: STATUS_CHAT, participant: null };
    const sent = this.deps.messages.recent.find(messageId(true, STATUS_CHAT, revokedMessageId));
    this.deps.context.emit('message.revoked', {
      after: toMessageRecord(msg, address, account.me, 'api'),
      revokedMessageId,
      before: sent ? toMessageRecord(sent.msg, sent.address, account.me, 'api') : null,
    });
  }

  /** The library's `statusJidList`: the contacts named (or every known one) and the account itself. */
  private async viewers(contacts: readonly string[] | null | undefined): Promise<string[]> {
    const account = this.deps.account();
    const ids = contacts ?? (await this.deps.knownContacts());
    return [...new Set([...ids.map(toLibraryJid), toLibraryJid(account.me.id)])];
  }
}

/** The status as a send of the same file (the host converted it already when asked). */
function asMessageMedia(status: OutgoingMediaStatus): OutgoingMedia {
  const to = { chatId: STATUS_CHAT, file: status.file };
  switch (status.kind) {
    case 'image':
      return { ...to, kind: 'image', caption: status.caption ?? null };
    case 'voice':
      return { ...to, kind: 'voice', convert: false };
    case 'video':
      return { ...to, kind: 'video', caption: status.caption ?? null, asNote: false, convert: false };
  }
}

const WHITE = 0xffffffff;

/** `#rrggbb` (opaque) or `#rrggbbaa` as the ARGB number WhatsApp stores. */
function argb(color: string): number {
  const hex = color.slice(1);
  return hex.length === 6 ? parseInt(`ff${hex}`, 16) : parseInt(`${hex.slice(6)}${hex.slice(0, 6)}`, 16);
}
