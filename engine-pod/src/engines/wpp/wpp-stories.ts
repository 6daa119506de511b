import { type DeleteStatusRequest, statusMessageId, type TextStatus } from '@switchboard/protocol';
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
 * Text statuses on WPP: wa-js's `WPP.status.sendTextStatus` (what WPPConnect's `sendTextStatus`
 * calls, without answering what it posted), a message to `status@broadcast` with its colour and
 * font, to the recipients the account's status privacy names; `contacts` is a 422 from the
 * catalog. A status is deleted with `WPP.status.remove`, which revokes it.
 */
export class WppStories {
  constructor(private readonly connection: WppConnection) {}

  /**
   * Checks the status, then answers the post of it (run by the engine's send gate), which
   * resolves with the message as WhatsApp Web made it.
   */
  postText(status: TextStatus): (client: WppStoriesClient) => Promise<WppMessage> {
    this.refuseContacts(status.contacts);
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
      // wa-js keys a status with the account as its participant; its id is answered as every engine's, `true_status@broadcast_<id>`.
      const message = await client.getMessageById(id);
      return { ...message, id: `true_${STATUS_CHAT}_${statusMessageId(id.split('_')[2] ?? id)}` };
    };
  }

  async deleteStatus(request: DeleteStatusRequest): Promise<void> {
    this.refuseContacts(request.contacts);
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

  private refuseContacts(contacts: readonly string[] | null | undefined): void {
    if (contacts?.length) throw catalogRefusal(this.connection.context.session, 'WPP', 'status.text', 'contacts');
  }
}

/** What the statuses use of wa-js in the page (`window.WPP`). */
interface WppStatusPage {
  WPP: {
    status: {
      sendTextStatus(text: string, options: object): Promise<{ id: string }>;
      remove(id: string): Promise<boolean>;
    };
  };
}
