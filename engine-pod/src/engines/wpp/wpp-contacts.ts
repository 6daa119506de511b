import type { Contact, WANumberExistResult } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import { contactRecord } from '../webjs/contacts.js';
import { wid } from '../webjs/webjs-ids.js';
import { pictureOf, refused, type WppChatsClient } from './wpp-chats.js';
import type { WppConnection } from './wpp-connection.js';

type WppWid = string | { readonly _serialized: string };

/** A contact as WPPConnect serializes it (`WAPI._serializeContactObj`): WhatsApp Web's contact model's fields. */
export interface WppContact {
  readonly id: WppWid;
  readonly name?: string | null;
  readonly pushname?: string | null;
  readonly shortName?: string | null;
  readonly isMyContact?: boolean;
  readonly isWAContact?: boolean;
}

/** `WAPI.checkNumberStatus`: the account's id when the number has one. */
export interface WppNumberStatus {
  readonly id: WppWid;
  readonly numberExists: boolean;
}

/** The slice of WPPConnect's client (its retriever and controls layers) the contact operations use. */
export interface WppContactsClient extends Pick<WppChatsClient, 'getProfilePicFromServer'> {
  getAllContacts(): Promise<WppContact[]>;
  /** Null when WhatsApp Web has no contact of that id. */
  getContact(contactId: string): Promise<WppContact | null>;
  checkNumberStatus(contactId: string): Promise<WppNumberStatus>;
  getStatus(contactId: string): Promise<{ readonly status?: string | null }>;
  getBlockList(): Promise<WppWid[]>;
  blockContact(contactId: string): Promise<boolean>;
  unblockContact(contactId: string): Promise<boolean>;
}

/**
 * Contacts on WPP, through WPPConnect's client: `getAllContacts`, `getContact`,
 * `checkNumberStatus` (wa-js's `contact.queryExists`, asked of the server), `getStatus` (the About
 * text), the picture from the server, and the block list (`blockContact`, `unblockContact`,
 * `getBlockList`). WPPConnect cannot save a contact: `contacts.update` stays 422.
 */
export class WppContacts {
  constructor(private readonly connection: WppConnection) {}

  async contacts(): Promise<Contact[]> {
    const client = this.client();
    const [contacts, blocked] = await Promise.all([
      client.getAllContacts().catch((error: unknown) => refused('list the contacts', error, '')),
      this.blocked(client),
    ]);
    return contacts.map((contact) => this.record(contact, blocked));
  }

  /** WhatsApp Web has only the contacts it met; any other is asked of the server. */
  async contact(id: string): Promise<Contact> {
    const client = this.client();
    const known = await client.getContact(id).catch((error: unknown) => refused(`find contact ${id}`, error, id));
    if (known) return this.record(known, await this.blocked(client));
    await this.registered(client, id);
    return this.record({ id, isWAContact: true }, await this.blocked(client));
  }

  async contactAbout(id: string): Promise<string | null> {
    const client = this.client();
    await this.registered(client, id);
    const about = await client.getStatus(id).catch((error: unknown) => refused(`read the About text of ${id}`, error, id));
    return about.status || null;
  }

  contactPicture(id: string): Promise<string | null> {
    return pictureOf(this.client(), id);
  }

  async setBlocked({ id, blocked }: { readonly id: string; readonly blocked: boolean }): Promise<void> {
    if (id.endsWith('@g.us')) throw new CommandError('INVALID', `${id} cannot be ${blocked ? 'blocked' : 'unblocked'}: it is a group`, { id });
    const client = this.client();
    await (blocked ? client.blockContact(id) : client.unblockContact(id)).catch((error: unknown) =>
      refused(`${blocked ? 'block' : 'unblock'} ${id}`, error, id),
    );
  }

  async checkNumber(phone: string): Promise<WANumberExistResult> {
    const found = await this.client()
      .checkNumberStatus(`${phone}@c.us`)
      .catch((error: unknown) => refused(`check the number ${phone}`, error, phone));
    return found.numberExists ? { numberExists: true, chatId: wid(found.id) } : { numberExists: false };
  }

  private async registered(client: WppContactsClient, id: string): Promise<void> {
    if (id.endsWith('@g.us')) return;
    const found = await client.checkNumberStatus(id).catch((error: unknown) => refused(`check ${id}`, error, id));
    if (!found.numberExists) throw new CommandError('NOT_FOUND', `${id} has no WhatsApp account`, { id });
  }

  private async blocked(client: WppContactsClient): Promise<Set<string>> {
    const list = await client.getBlockList().catch((error: unknown) => refused('read the block list', error, ''));
    return new Set(list.map((id) => wid(id)));
  }

  /** What WhatsApp Web's model says, and what the id says of the rest (a fake or real page may leave its getters out). */
  private record(contact: WppContact, blocked: ReadonlySet<string>): Contact {
    const id = wid(contact.id);
    return contactRecord({
      ...contact,
      id,
      number: id.endsWith('@c.us') ? id.split('@')[0]! : null,
      isMe: id === this.connection.meId(),
      isUser: id.endsWith('@c.us') || id.endsWith('@lid'),
      isGroup: id.endsWith('@g.us'),
      isBlocked: blocked.has(id),
    });
  }

  private client(): WppContactsClient {
    return this.connection.workingClient();
  }
}
