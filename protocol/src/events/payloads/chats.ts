import { z } from 'zod';
import { Label } from '../../label.js';
import { unixSeconds } from './common.js';

export const ChatArchivePayload = z
  .object({
    id: z.string().meta({ description: 'Chat id', examples: ['11111111111@c.us'] }),
    timestamp: unixSeconds(),
    archived: z.boolean().meta({ description: 'false when the chat was unarchived' }),
  })
  .meta({ id: 'ChatArchivePayload' });
export type ChatArchivePayload = z.infer<typeof ChatArchivePayload>;

/** The label as it was, with `name` emptied (spec 2.9): only the id still identifies it. */
export const LabelDeletedPayload = Label.extend({
  name: z.literal('').meta({ description: 'Always empty on deletion' }),
}).meta({ id: 'LabelDeletedPayload' });
export type LabelDeletedPayload = z.infer<typeof LabelDeletedPayload>;

/** `label.chat.added` and `label.chat.deleted`. */
export const LabelChatPayload = z
  .object({
    labelId: z.string().meta({ examples: ['1'] }),
    chatId: z.string().meta({ examples: ['11111111111@c.us'] }),
    label: Label.nullable().meta({
      description: 'null when the label is not known yet, as happens right after QR pairing',
    }),
  })
  .meta({ id: 'LabelChatPayload' });
export type LabelChatPayload = z.infer<typeof LabelChatPayload>;
