// Event messages and pins through Chromium, for both browser engines: whatsapp-web.js and wa-js
// (`WPP.chat.sendEventMessage`, `pinMsg`) build the `event_creation` message and pin with WhatsApp
// Web's own actions on the fake WhatsApp Web, whose backend keeps what the page sent, the call
// links it had made and the pins.
import { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001515@c.us', pushName: 'Event Tests' };
const CONTACT = '15551115555@c.us';

describe.each([
  // whatsapp-web.js leaves an event without an end open.
  ['WEBJS', pairedWebjs, (_start: number): number | null => null],
  // wa-js ends it two hours after its start.
  ['WPP', pairedWpp, (start: number): number | null => start + 7200],
] as const)('%s event messages and pins through Chromium', (_engine, paired, openEndOf) => {
  const session = pairedSuite(paired, 'events', ME);
  const { payloads, run } = session;

  const event = {
    name: 'Launch',
    description: 'Cake',
    startTime: 2_063_137_000,
    endTime: 2_063_140_600,
    location: { name: 'Office' },
    extraGuestsAllowed: false,
  };

  it('send.event: the contact gets an event message with its name, times, description and place, and no call link', async () => {
    const record = MessageRecord.parse(await run({ op: 'send.event', args: { chatId: CONTACT, event } }));
    const sent = await waitFor(() => session.phone.sentTo(CONTACT).find((msg) => `true_${CONTACT}_${msg.id.id}` === record.id), 'the event message');
    expect(sent).toMatchObject({
      type: 'event_creation',
      eventName: 'Launch',
      eventDescription: 'Cake',
      eventStartTime: 2_063_137_000,
      eventEndTime: 2_063_140_600,
      eventLocation: { name: 'Office' },
      isEventCanceled: false,
    });
    // The interface has no call for an event: WhatsApp is asked for no call link, the message has none.
    expect(sent.eventJoinLink ?? null).toBeNull();
    expect(session.phone.callLinks).toEqual([]);
    expect(record).toMatchObject({ source: 'api', fromMe: true, to: CONTACT });
  });

  it('send.event without an end: sent with the end the library gives it, and answered as a message in the chat', async () => {
    const { endTime: _end, location: _place, description: _text, ...open } = event;
    const record = MessageRecord.parse(await run({ op: 'send.event', args: { chatId: CONTACT, event: open } }));
    const sent = await waitFor(() => session.phone.sentTo(CONTACT).find((msg) => `true_${CONTACT}_${msg.id.id}` === record.id), 'the event message');
    expect(sent).toMatchObject({ type: 'event_creation', eventName: 'Launch', eventStartTime: 2_063_137_000 });
    expect(sent.eventEndTime ?? null).toBe(openEndOf(2_063_137_000));
    await waitFor(() => payloads('message.any').some((p) => p.id === record.id), 'message.any for the event message');
  });

  it('send.event: extra guests, which the library cannot set, are refused and nothing is sent', async () => {
    const before = session.phone.sent.length;
    await expect(run({ op: 'send.event', args: { chatId: CONTACT, event: { ...event, extraGuestsAllowed: true } } })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
    });
    expect(session.phone.sent).toHaveLength(before);
  });

  it('message.pin: the servers get the pin of a received message for the duration asked, then its unpin', async () => {
    const id = session.phone.text(CONTACT, 'pin me');
    const messageId = `false_${CONTACT}_${id}`;
    await waitFor(() => payloads('message').some((p) => p.id === messageId), 'the message to arrive');
    await run({ op: 'message.pin', args: { chatId: CONTACT, messageId, duration: 86_400 } });
    await run({ op: 'message.pin', args: { chatId: CONTACT, messageId, duration: null } });
    expect(session.phone.pins).toEqual([
      { msgId: messageId, pin: true, duration: 86_400 },
      { msgId: messageId, pin: false, duration: 0 },
    ]);
  });
});
