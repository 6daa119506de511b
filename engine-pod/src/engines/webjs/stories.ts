import { type DeleteStatusRequest, type MessageRecord, messageId, statusMessageId, type TextStatus } from '@switchboard/protocol';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import { invalidField } from '../../command-error.js';
import type { WebjsChatting } from './chatting.js';
import { ECHO_WAIT_MS, findMessage, type WebjsDeps } from './deps.js';
import { messageRecord } from './message-mapping.js';
import { wid } from './webjs-ids.js';

const STATUS_CHAT = 'status@broadcast';
/** WhatsApp Web's status fonts; the library sends any other as the first. */
const LAST_FONT = 7;

/**
 * Status updates on WEBJS: `sendMessage` to `status@broadcast`, which the library posts with
 * WhatsApp Web's status actions (text with its colour and font, or a `MessageMedia`), to the
 * recipients the account's status privacy names: it cannot pick `contacts` (a 422 from the
 * catalog). WhatsApp Web posts a text status as a message it makes itself, with an id of its own:
 * the message the library answers is not the one posted, so the answer is the posted one, as the
 * library reports it (`message_create`). A status is taken back with `revokeStatusMessage`, which
 * revokes it from the account's own status (`Message.delete` would revoke it as a chat message).
 */
export class WebjsStories {
  constructor(
    private readonly deps: WebjsDeps,
    private readonly chatting: WebjsChatting,
  ) {}

  async sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    this.refuseContacts(status.contacts);
    if (status.font > LAST_FONT) throw invalidField('font', `WhatsApp Web has status fonts 0 to ${LAST_FONT}`);
    if (status.id) throw this.deps.notSupported('posting with a pre-generated message id (`id`): WhatsApp Web makes up its own');
    const client = this.deps.client();
    const options = { linkPreview: status.linkPreview, extra: { backgroundColor: status.backgroundColor, fontStyle: status.font }, sendSeen: false };
    return this.deps.gate
      .send(
        async () => {
          const echo = this.deps.echoes.expect(
            'message_create',
            (posted) => posted.id.fromMe && wid(posted.id.remote) === STATUS_CHAT && posted.body === status.text,
          );
          try {
            await client.sendMessage(STATUS_CHAT, status.text, options);
          } catch (error) {
            echo.cancel();
            throw error;
          }
          const [posted] = await echo.within(ECHO_WAIT_MS, 'the text status posted');
          return messageRecord(posted, 'api');
        },
        (posted) => posted.id,
        (posted) => this.deps.context.emit('message.any', posted),
      )
      .catch(this.deps.engineError('post the text status'));
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
    const id = messageId(true, STATUS_CHAT, statusMessageId(request.id));
    // The library answers nothing for a status it cannot find: look it up first for a NOT_FOUND.
    await findMessage(this.deps, id);
    await this.deps
      .client()
      .revokeStatusMessage(id)
      .catch(this.deps.engineError(`take back the status ${id}`));
  }

  private refuseContacts(contacts: readonly string[] | null | undefined): void {
    if (contacts?.length)
      throw this.deps.notSupported(
        'choosing who sees a status (`contacts`): WhatsApp Web posts to the recipients the account’s status privacy names',
      );
  }
}
