import { z } from 'zod';
import { ContactRef, ContactUpdateBody } from '../contacts.js';
import { ChatId } from '../ids.js';
import { LabelId, LabelSpec, SetLabelsRequest } from '../label.js';
import { command } from './command.js';

const contact = z.object({ contactId: ContactRef });

/** Engine commands of issue 16's Contacts: the people the account knows, and what it may ask of them. */
export const contactCommands = [
  command('contacts.list'),
  command('contacts.get', contact),
  command('contacts.about', contact),
  command('contacts.picture', contact.extend({ refresh: z.boolean() })),
  command('contacts.block', contact),
  command('contacts.unblock', contact),
  command('contacts.update', contact.extend(ContactUpdateBody.shape)),
] as const;

/** Engine commands of issue 16's Labels (business accounts' chat labels). */
export const labelCommands = [
  command('labels.list'),
  command('labels.create', LabelSpec),
  command('labels.update', z.object({ id: LabelId, label: LabelSpec })),
  command('labels.delete', z.object({ id: LabelId })),
  command('labels.ofChat', z.object({ chatId: ChatId })),
  command('labels.setForChat', z.object({ chatId: ChatId, labels: SetLabelsRequest.shape.labels })),
  command('labels.chats', z.object({ id: LabelId })),
] as const;
