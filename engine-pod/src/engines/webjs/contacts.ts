import type { Contact, WANumberExistResult } from '@switchboard/protocol';
import { CommandError, invalidField } from '../../command-error.js';
import type { WebjsDeps } from './deps.js';
import type { WebjsContact, WebjsContactHandle } from './webjs-client.js';
import { wid } from './webjs-ids.js';

/** A library `Contact` as the protocol's (which is its shape, less what WhatsApp Web keeps besides). */
export function contactRecord(contact: WebjsContact): Contact {
  const id = wid(contact.id);
  const lid = id.endsWith('@lid');
  return {
    id,
    number: lid ? null : (contact.number ?? null),
    lid: lid ? id : null,
    name: contact.name ?? null,
    pushname: contact.pushname ?? null,
    shortName: contact.shortName ?? null,
    isMe: Boolean(contact.isMe),
    isUser: Boolean(contact.isUser),
    isGroup: Boolean(contact.isGroup),
    isWAContact: Boolean(contact.isWAContact),
    isMyContact: Boolean(contact.isMyContact),
    isBlocked: Boolean(contact.isBlocked),
  };
}

/** Contacts on WEBJS: the client's `getContacts`, `getContactById`, `getNumberId`, and `Contact`'s methods. */
export class WebjsContacts {
  constructor(private readonly deps: WebjsDeps) {}

  async contacts(): Promise<Contact[]> {
    const contacts = await this.deps.client().getContacts().catch(this.deps.engineError('list the contacts'));
    return contacts.map(contactRecord);
  }

  /** WhatsApp Web makes up a contact for any id; one it does not know is asked of the server. */
  async contact(id: string): Promise<Contact> {
    return contactRecord(await this.known(id));
  }

  async contactAbout(id: string): Promise<string | null> {
    const contact = await this.known(id);
    return contact.getAbout().catch(this.deps.engineError(`read the About text of ${id}`));
  }

  async contactPicture(id: string): Promise<string | null> {
    const url = await this.deps
      .client()
      .getProfilePicUrl(id)
      .catch(this.deps.engineError(`read the picture of ${id}`));
    return url ?? null;
  }

  async setBlocked({ id, blocked }: { readonly id: string; readonly blocked: boolean }): Promise<void> {
    const contact = await this.known(id);
    const done = await (blocked ? contact.block() : contact.unblock()).catch(this.deps.engineError(`${blocked ? 'block' : 'unblock'} ${id}`));
    // The library answers false for a group, which cannot be blocked.
    if (!done) throw new CommandError('INVALID', `${id} cannot be ${blocked ? 'blocked' : 'unblocked'}: it is a group`, { id });
  }

  /**
   * `saveOrEditAddressbookContact` by phone number, synced to the phone's address book. A LID
   * has a number only when WhatsApp Web knows it.
   */
  async updateContact({ id, firstName, lastName }: { readonly id: string; readonly firstName: string; readonly lastName: string }): Promise<void> {
    const number = id.endsWith('@lid') ? contactRecord(await this.known(id)).number : id.split('@')[0]!;
    if (!number) throw invalidField('contactId', 'WEBJS saves contacts by phone number, and none is known for this LID');
    await this.deps
      .client()
      .saveOrEditAddressbookContact(number, firstName, lastName, true)
      .catch(this.deps.engineError(`save contact ${id}`));
  }

  async checkNumber(phone: string): Promise<WANumberExistResult> {
    const found = await this.deps
      .client()
      .getNumberId(phone)
      .catch(this.deps.engineError(`check the number ${phone}`));
    return found ? { numberExists: true, chatId: wid(found) } : { numberExists: false };
  }

  private async known(id: string): Promise<WebjsContactHandle> {
    const client = this.deps.client();
    const contact = await client.getContactById(id).catch(this.deps.engineError(`find contact ${id}`));
    if (contact.isWAContact || contact.isMyContact || contact.isGroup) return contact;
    const registered = await client.isRegisteredUser(id).catch(this.deps.engineError(`check ${id}`));
    if (!registered) throw new CommandError('NOT_FOUND', `${id} has no WhatsApp account`, { id });
    return contact;
  }
}
