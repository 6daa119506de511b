import { type DeleteStatusRequest, type MessageRecord, messageId, statusMessageId, type TextStatus } from '@switchboard/protocol';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import { invalidField } from '../../command-error.js';
import type { WebjsChatting } from './chatting.js';
import type { WebjsDeps } from './deps.js';

const STATUS_CHAT = 'status@broadcast';
/** WhatsApp Web's status fonts; the library sends any other as the first. */
const LAST_FONT = 7;

/**
 * Status updates on WEBJS: `sendMessage` to `status@broadcast`, which the library posts with
 * WhatsApp Web's status actions (text with its colour and font, or a `MessageMedia`), to the
 * recipients the account's status privacy names: it cannot pick `contacts` (a 422 from the
 * catalog). A status is deleted as any own message is, `Message.delete(true)`.
 */
export class WebjsStories {
  constructor(
    private readonly deps: WebjsDeps,
    private readonly chatting: WebjsChatting,
  ) {}

  async sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    this.refuseContacts(status.contacts);
    if (status.font > LAST_FONT) throw invalidField('font', `WhatsApp Web has status fonts 0 to ${LAST_FONT}`);
    return this.chatting.send({ chatId: STATUS_CHAT, id: status.id }, status.text, {
      linkPreview: status.linkPreview,
      extra: { backgroundColor: status.backgroundColor, fontStyle: status.font },
    });
  }

  async sendMediaStatus(status: OutgoingMediaStatus): Promise<MessageRecord> {
    this.refuseContacts(status.contacts);
    const { MessageMedia } = await this.deps.content();
    const { file } = status;
    const media = new MessageMedia(file.mimetype, file.data.toString('base64'), file.filename, file.data.length);
    const caption = 'caption' in status && status.caption ? { caption: status.caption } : {};
    return this.chatting.send({ chatId: STATUS_CHAT, id: status.id }, media, status.kind === 'voice' ? { sendAudioAsVoice: true } : caption);
  }

  async deleteStatus(request: DeleteStatusRequest): Promise<void> {
    this.refuseContacts(request.contacts);
    await this.chatting.deleteMessage({ chatId: STATUS_CHAT, messageId: messageId(true, STATUS_CHAT, statusMessageId(request.id)) });
  }

  private refuseContacts(contacts: readonly string[] | null | undefined): void {
    if (contacts?.length)
      throw this.deps.notSupported(
        'choosing who sees a status (`contacts`): WhatsApp Web posts to the recipients the account’s status privacy names',
      );
  }
}
