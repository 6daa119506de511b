import { type DeleteStatusRequest, statusMessageId, type TextStatus } from '@switchboard/protocol';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import { CommandError, invalidField } from '../../command-error.js';
import { catalogRefusal } from '../../command-rules.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import type { WppMessage } from './wpp-messages.js';
import { wppSendOptions } from './wpp-send-options.js';

const STATUS_CHAT = 'status@broadcast';
/** wa-js's status fonts: it posts any other as the first. */
const LAST_FONT = 5;

/** The slice of WPPConnect's client the statuses use: its `sendTextStatus` answers nothing, so wa-js's is called in the page. */
export interface WppStoriesClient {
  readonly page: WppPage;
  getMessageById(id: string): Promise<WppMessage>;
}

/**
 * Statuses on WPP: wa-js's `WPP.status.sendTextStatus`, `sendImageStatus` and `sendVideoStatus`
 * (what WPPConnect's methods of those names call, without answering what they posted), a message
 * to `status@broadcast` to the recipients the account's status privacy names; `contacts` is a 422
 * from the catalog. A voice status is sent as wa-js sends its image and video statuses (its
 * `sendFileMessage` to `status@broadcast`), as a voice note: wa-js has no function of its own for
 * it. WhatsApp Web keys a status with a file itself, so a pre-generated `id` is a 422 from the
 * catalog there. A status is deleted with `WPP.status.remove`, which revokes it.
 */
export class WppStories {
  constructor(private readonly connection: WppConnection) {}

  /**
   * Checks the status, then answers the post of it (run by the engine's send gate), which
   * resolves with the message as WhatsApp Web made it.
   */
  postText(status: TextStatus): (client: WppStoriesClient) => Promise<WppMessage> {
    this.refuseContacts(status.contacts, 'status.text');
    if (status.font > LAST_FONT) throw invalidField('font', `WPP posts status fonts 0 to ${LAST_FONT}`);
    const options = {
      backgroundColor: status.backgroundColor,
      font: status.font,
      ...wppSendOptions({ chatId: STATUS_CHAT, id: status.id }),
    };
    return async (client) => {
      const id = await client.page.evaluate(
        async ({ text, options }) => {
          const { WPP } = globalThis as unknown as WppStatusPage;
          const sent = await WPP.status.sendTextStatus(text, options);
          return sent.id;
        },
        { text: status.text, options },
      );
      return postedStatus(client, id);
    };
  }

  /** Checks the status, then answers the post of its file (run by the engine's send gate). */
  postMedia(status: OutgoingMediaStatus): (client: WppStoriesClient) => Promise<WppMessage> {
    this.refuseContacts(status.contacts, 'status.media');
    if (status.id) throw catalogRefusal(this.connection.context.session, 'WPP', 'status.media', 'id');
    const { file } = status;
    const caption = 'caption' in status && status.caption ? status.caption : undefined;
    // wa-js parses the data URL strictly (no parameters such as "; codecs=opus"), as for send.media.
    const post = {
      kind: status.kind,
      dataUrl: `data:${file.mimetype.split(';')[0]!.trim()};base64,${file.data.toString('base64')}`,
      options: caption ? { caption } : {},
    };
    return async (client) => {
      const id = await client.page.evaluate(async ({ kind, dataUrl, options }) => {
        const { WPP } = globalThis as unknown as WppStatusPage;
        if (kind === 'image') return (await WPP.status.sendImageStatus(dataUrl, options)).id;
        if (kind === 'video') return (await WPP.status.sendVideoStatus(dataUrl, options)).id;
        // What those two do, as a voice note: WhatsApp Web keys the status itself and wa-js waits for the servers' ack.
        return (await WPP.chat.sendFileMessage('status@broadcast', dataUrl, { type: 'audio', isPtt: true, waitForAck: true })).id;
      }, post);
      return postedStatus(client, id);
    };
  }

  async deleteStatus(request: DeleteStatusRequest): Promise<void> {
    this.refuseContacts(request.contacts, 'status.delete');
    const client = this.connection.workingClient();
    const id = `true_${STATUS_CHAT}_${statusMessageId(request.id)}_${this.connection.meId()}`;
    await client.page
      .evaluate((msgId) => (globalThis as unknown as WppStatusPage).WPP.status.remove(msgId), id)
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (/not found|msg_not_found/i.test(message))
          throw new CommandError('NOT_FOUND', `WhatsApp Web has no status ${request.id}`, { id: request.id });
        throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not delete the status ${request.id}: ${message}`);
      });
  }

  private refuseContacts(contacts: readonly string[] | null | undefined, op: 'status.text' | 'status.media' | 'status.delete'): void {
    if (contacts?.length) throw catalogRefusal(this.connection.context.session, 'WPP', op, 'contacts');
  }
}

/**
 * The status wa-js posted, read back by its key: wa-js keys a status with the account as its
 * participant; its id is answered as every engine's, `true_status@broadcast_<id>`.
 */
async function postedStatus(client: WppStoriesClient, key: string): Promise<WppMessage> {
  const message = await client.getMessageById(key);
  return { ...message, id: `true_${STATUS_CHAT}_${statusMessageId(key.split('_')[2] ?? key)}` };
}

/** What the statuses use of wa-js in the page (`window.WPP`). */
interface WppStatusPage {
  WPP: {
    status: {
      sendTextStatus(text: string, options: object): Promise<{ id: string }>;
      sendImageStatus(content: string, options: object): Promise<{ id: string }>;
      sendVideoStatus(content: string, options: object): Promise<{ id: string }>;
      remove(id: string): Promise<boolean>;
    };
    chat: { sendFileMessage(chatId: string, content: string, options: object): Promise<{ id: string }> };
  };
}
