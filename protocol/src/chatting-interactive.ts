import { z } from 'zod';
import { sendFields, withSession } from './chatting.js';
import { FileInput, HttpUrl } from './chatting-media.js';
import { inChat, MessageRef, OF_CHAT } from './message-ref.js';
import { presentNotNull, UNIQUE_ITEMS, when } from './openapi-rules.js';

// Limits are the messaging service's own: beyond them it refuses or cuts the message.

const PhoneNumber = z
  .string()
  .regex(/^\+?[\d\s().-]{3,32}$/, { message: 'must be a phone number: digits, optional "+", spaces, dashes or parentheses' });

/** Which field each button type needs besides its text. */
const BUTTON_NEEDS = { url: 'url', call: 'phoneNumber', copy: 'copyCode' } as const;

export const Button = z
  .object({
    type: z.enum(['reply', 'url', 'call', 'copy']).default('reply'),
    text: z.string().min(1).max(40),
    id: z.string().min(1).max(256).nullish().meta({ description: 'Sent back in the reply to a "reply" button' }),
    url: HttpUrl.nullish(),
    phoneNumber: PhoneNumber.nullish(),
    copyCode: z.string().min(1).max(256).nullish(),
  })
  .superRefine((button, ctx) => {
    if (button.type === 'reply') return;
    const field = BUTTON_NEEDS[button.type];
    if (button[field] == null) ctx.addIssue({ code: 'custom', path: [field], message: `is required for a "${button.type}" button` });
  })
  .meta({ id: 'Button', allOf: Object.entries(BUTTON_NEEDS).map(([type, field]) => when('type', type, presentNotNull(field))) });

export const SendButtonsArgs = z.object({
  ...sendFields,
  header: z.string().max(60).nullish(),
  headerImage: FileInput.nullish(),
  body: z.string().min(1).max(1024),
  footer: z.string().max(60).nullish(),
  buttons: z.array(Button).min(1).max(10),
});
export const SendButtonsRequest = withSession(SendButtonsArgs).meta({ id: 'SendButtonsRequest' });

export const ListRow = z
  .object({
    title: z.string().min(1).max(24),
    description: z.string().max(72).nullish(),
    rowId: z.string().min(1).max(200),
  })
  .meta({ id: 'Row' });

export const ListSection = z.object({ title: z.string().min(1).max(24), rows: z.array(ListRow).min(1).max(10) }).meta({ id: 'Section' });

/** At most 10 rows over all sections, and row ids that tell the answers apart. */
export const SendListMessage = z
  .object({
    title: z.string().min(1).max(60),
    description: z.string().max(1024).nullish(),
    footer: z.string().max(60).nullish(),
    button: z.string().min(1).max(20),
    sections: z.array(ListSection).min(1).max(10),
  })
  .meta({ description: 'At most 10 rows over all sections; every `rowId` unique in the list' })
  .superRefine((list, ctx) => {
    const rows = list.sections.flatMap((section) => section.rows);
    if (rows.length > 10) ctx.addIssue({ code: 'custom', path: ['sections'], message: `must hold at most 10 rows in all (has ${rows.length})` });
    const seen = new Set<string>();
    list.sections.forEach((section, s) =>
      section.rows.forEach((row, r) => {
        if (seen.has(row.rowId)) ctx.addIssue({ code: 'custom', path: ['sections', s, 'rows', r, 'rowId'], message: 'must be unique in the list' });
        seen.add(row.rowId);
      }),
    );
  })
  .meta({ id: 'SendListMessage' });

export const SendListArgs = z.object({ ...sendFields, message: SendListMessage });
export const SendListRequest = withSession(SendListArgs).meta({ id: 'SendListRequest' });

const PollOption = z.string().min(1).max(100);
const distinct = (values: readonly string[]) => new Set(values).size === values.length;

export const MessagePoll = z
  .object({
    name: z.string().min(1).max(255),
    options: z.array(PollOption).min(2).max(12).refine(distinct, { message: 'must be different from each other' }).meta(UNIQUE_ITEMS),
    multipleAnswers: z.boolean().default(false),
  })
  .meta({ id: 'MessagePoll' });
export type MessagePoll = z.infer<typeof MessagePoll>;

export const MessagePollArgs = z.object({ ...sendFields, poll: MessagePoll });
export const MessagePollRequest = withSession(MessagePollArgs).meta({ id: 'MessagePollRequest' });

export const MessagePollVoteArgs = z
  .object({
    chatId: sendFields.chatId,
    pollMessageId: MessageRef.meta({ description: `The poll message: {fromMe}_{chatId}_{messageId}[_{participant}]. ${OF_CHAT}` }),
    pollServerId: z.number().int().nullish().meta({ description: 'Channels only; not used by these engines' }),
    votes: z
      .array(PollOption)
      .max(12)
      .refine(distinct, { message: 'must be different from each other' })
      .meta({ ...UNIQUE_ITEMS, description: 'The options voted for; empty takes the vote back' }),
  })
  .refine((args) => inChat(args.chatId, args.pollMessageId), {
    path: ['pollMessageId'],
    message: 'must be a message of chatId',
  });
export const MessagePollVoteRequest = withSession(MessagePollVoteArgs).meta({ id: 'MessagePollVoteRequest' });

export const MessageLocationArgs = z.object({
  ...sendFields,
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  title: z.string().max(1024).nullish(),
});
export const MessageLocationRequest = withSession(MessageLocationArgs).meta({ id: 'MessageLocationRequest' });

/** The reference's VCardContact (`{vcard}`) and Contact (the fields a card is built from) in one. */
export const ContactCard = z
  .object({
    vcard: z
      .string()
      .max(16384, { abort: true })
      .regex(/^BEGIN:VCARD\r?\n[\s\S]*\r?\nEND:VCARD\s*$/, { message: 'must be a vCard: BEGIN:VCARD ... END:VCARD' })
      .nullish(),
    fullName: z.string().min(1).max(256).nullish(),
    organization: z.string().max(256).nullish(),
    phoneNumber: PhoneNumber.nullish(),
    whatsappId: z
      .string()
      .regex(/^\d{1,20}$/, { message: 'must be digits, without "+" or "@c.us"' })
      .nullish(),
  })
  .superRefine((contact, ctx) => {
    if (contact.vcard != null) return;
    for (const field of ['fullName', 'phoneNumber'] as const) {
      if (contact[field] == null) ctx.addIssue({ code: 'custom', path: [field], message: 'is required unless vcard is given' });
    }
  })
  .meta({
    id: 'ContactCard',
    description: 'A `vcard`, or the fields a card is built from: `fullName` and `phoneNumber` at least',
    anyOf: [presentNotNull('vcard'), presentNotNull('fullName', 'phoneNumber')],
  });
export type ContactCard = z.infer<typeof ContactCard>;

export const MessageContactVcardArgs = z.object({ ...sendFields, contacts: z.array(ContactCard).min(1).max(20) });
export const MessageContactVcardRequest = withSession(MessageContactVcardArgs).meta({ id: 'MessageContactVcardRequest' });

/** `replyTo` is the reference's name for the button message answered; `reply_to` works as well. */
export const MessageButtonReplyArgs = z.object({
  ...sendFields,
  replyTo: sendFields.reply_to,
  selectedDisplayText: z.string().min(1).max(256),
  selectedButtonID: z.string().min(1).max(256),
});
export const MessageButtonReply = withSession(MessageButtonReplyArgs).meta({ id: 'MessageButtonReply' });
