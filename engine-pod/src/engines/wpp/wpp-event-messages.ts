import type { MessageRecord } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { notSupported } from '../../command-rules.js';
import type { WppPage } from './wpp-client.js';
import type { WppMessage } from './wpp-messages.js';
import { type WppSendOptions, wppSendOptions } from './wpp-send-options.js';

/** The slice of WPPConnect's client an event message uses: wa-js's sender is called in the page (WPPConnect 2.3.3 wraps none). */
export interface WppEventMessagesClient {
  readonly page: WppPage;
  getMessageById(id: string): Promise<WppMessage>;
}

/** wa-js's `EventMessageOptions` as the engine sets them: no `callType`, so WhatsApp is asked for no call link. */
interface WppEventOptions extends WppSendOptions {
  readonly name: string;
  readonly description?: string;
  readonly startTime: number;
  readonly endTime?: number;
  readonly location?: { readonly degreesLatitude: number; readonly degreesLongitude: number; readonly name: string };
}

/** What an event message uses of wa-js in the page (`window.WPP`). */
interface WppEventGlobals {
  WPP: { chat: { sendEventMessage(chatId: string, options: WppEventOptions): Promise<{ id: string }> } };
}

/** The engine's one send (wpp-engine.ts): through the send gate, answered as made. */
type WppSend = (chatId: string, run: (client: WppEventMessagesClient) => Promise<WppMessage>) => Promise<MessageRecord>;

/**
 * Event messages on WPP: wa-js's `WPP.chat.sendEventMessage` (an `event_creation` message, sent
 * whole), read back by the id it answers. wa-js sets no extra guests (a 422), and it ends an event
 * without `endTime` two hours after its start. A place is its name only, at 0,0, as
 * whatsapp-web.js sends it: the interface has no coordinates for it.
 */
export function sendWppEvent(session: string, send: WppSend, args: CommandArgs<'send.event'>): Promise<MessageRecord> {
  const { event } = args;
  if (event.extraGuestsAllowed)
    throw notSupported(session, 'WPP', 'extra guests in event messages (`event.extraGuestsAllowed`): wa-js cannot set it', {
      field: 'event.extraGuestsAllowed',
    });
  const options: WppEventOptions = {
    name: event.name,
    startTime: event.startTime,
    ...(event.description ? { description: event.description } : {}),
    ...(event.endTime ? { endTime: event.endTime } : {}),
    ...(event.location ? { location: { degreesLatitude: 0, degreesLongitude: 0, name: event.location.name } } : {}),
    ...wppSendOptions(args),
  };
  return send(args.chatId, async (client) => {
    const id = await client.page.evaluate(
      async ({ chatId, options }) => (await (globalThis as unknown as WppEventGlobals).WPP.chat.sendEventMessage(chatId, options)).id,
      { chatId: args.chatId, options },
    );
    return client.getMessageById(id);
  });
}
