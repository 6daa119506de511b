import type { Contact } from '@switchboard/protocol';
import type makeWASocket from '@whiskeysockets/baileys';
import type { BaileysEventMap, Contact as BaileysContact } from '@whiskeysockets/baileys';
import { jidNormalizedUser } from '@whiskeysockets/baileys';
import { CommandError } from '../../command-error.js';
import { toContactId } from './jids.js';
import { askService, serviceFailure } from './service-query.js';

type WASocket = ReturnType<typeof makeWASocket>;

/** Answers the service gives for a picture or About text it will not show: none set (404), hidden (401). */
const HIDDEN: ReadonlySet<unknown> = new Set([401, 404]);

export interface NowebContactsDeps {
  /** The connected socket, or a 422 when there is none. */
  socket(): WASocket;
  /** The account's own id (`<number>@c.us`), or null before pairing. */
  meId(): string | null;
}

/**
 * Issue 16's Contacts on NOWEB. Baileys keeps no contact list of its own: the contacts are those
 * the service announced since the socket opened (`contacts.upsert`, `contacts.update`, from the
 * history sync and the address book's app state) and those this session blocked or named. The
 * rest are queries: onWhatsApp, fetchStatus, profilePictureUrl, updateBlockStatus and the
 * `contactAction` app state patch.
 */
export class NowebContacts {
  private readonly known = new Map<string, BaileysContact>();
  private readonly blocked = new Set<string>();

  constructor(private readonly deps: NowebContactsDeps) {}

  /** Keeps what the library's events say of contacts and the block list. */
  observe(events: Partial<BaileysEventMap>): void {
    for (const contact of [...(events['contacts.upsert'] ?? []), ...(events['contacts.update'] ?? [])]) {
      if (!contact.id) continue;
      const id = toContactId(contact.id);
      this.known.set(id, { ...this.known.get(id), ...contact, id: contact.id });
    }
    for (const change of [events['blocklist.set'], events['blocklist.update']]) {
      if (!change) continue;
      const type = 'type' in change ? change.type : 'set';
      if (type === 'set') this.blocked.clear();
      for (const jid of change.blocklist) {
        if (type === 'remove') this.blocked.delete(toContactId(jid));
        else this.blocked.add(toContactId(jid));
      }
    }
  }

  async contacts(): Promise<Contact[]> {
    this.deps.socket();
    const ids = new Set([...this.known.keys(), ...this.blocked]);
    return [...ids].map((id) => this.contactOf(id));
  }

  async contact(id: string): Promise<Contact> {
    if (id.endsWith('@c.us')) {
      const number = id.slice(0, -'@c.us'.length);
      const found = await this.ask(`check ${number}`, (socket) => socket.onWhatsApp(number));
      if (!found?.some((result) => result.exists)) {
        throw new CommandError('NOT_FOUND', `${id} has no account with the messaging service`, { contactId: id });
      }
    }
    return this.contactOf(id);
  }

  async about(id: string): Promise<string | null> {
    const results = await this.hiddenAsNull(`read the About text of ${id}`, (socket) => socket.fetchStatus(jidOf(id)));
    const status = (results?.[0] as { status?: { status?: unknown } | null } | undefined)?.status?.status;
    return typeof status === 'string' && status !== '' ? status : null;
  }

  async picture(id: string): Promise<string | null> {
    return (await this.hiddenAsNull(`read the picture of ${id}`, (socket) => socket.profilePictureUrl(jidOf(id), 'image'))) ?? null;
  }

  async setBlocked(id: string, blocked: boolean): Promise<void> {
    await this.ask(`${blocked ? 'block' : 'unblock'} ${id}`, (socket) => socket.updateBlockStatus(jidOf(id), blocked ? 'block' : 'unblock'));
    if (blocked) this.blocked.add(id);
    else this.blocked.delete(id);
  }

  async update(id: string, name: { readonly firstName: string; readonly lastName: string }): Promise<void> {
    const fullName = [name.firstName, name.lastName].filter(Boolean).join(' ');
    await this.ask(`name ${id}`, (socket) =>
      socket.addOrEditContact(jidOf(id), { fullName, firstName: name.firstName, saveOnPrimaryAddressbook: true }),
    );
    const known = this.known.get(id);
    this.known.set(id, { ...known, id: jidOf(id), name: fullName });
  }

  private contactOf(id: string): Contact {
    const known = this.known.get(id);
    const phone = id.endsWith('@c.us') ? id : known?.phoneNumber ? toContactId(known.phoneNumber) : null;
    const lid = id.endsWith('@lid') ? id : known?.lid ? toContactId(known.lid) : null;
    const shown = phone ?? id;
    return {
      id: shown,
      number: phone ? phone.slice(0, -'@c.us'.length) : null,
      lid,
      name: known?.name ?? null,
      pushname: known?.notify ?? null,
      shortName: known?.name?.split(' ')[0] ?? null,
      isMe: shown === this.deps.meId(),
      isUser: true,
      isGroup: false,
      isWAContact: true,
      isMyContact: !!known?.name,
      isBlocked: this.blocked.has(shown) || this.blocked.has(id),
    };
  }

  /** A query whose 401/404 means "not shown": null. */
  private async hiddenAsNull<T>(doing: string, query: (socket: WASocket) => Promise<T>): Promise<T | null> {
    try {
      return await query(this.deps.socket());
    } catch (error) {
      if (error instanceof CommandError) throw error;
      if (HIDDEN.has((error as { data?: unknown } | null)?.data)) return null;
      throw serviceFailure(doing, error);
    }
  }

  private async ask<T>(doing: string, query: (socket: WASocket) => Promise<T>): Promise<T> {
    return askService(() => this.deps.socket(), doing, query);
  }
}

/** The library's jid of a contact id: `@c.us` is `@s.whatsapp.net`. */
function jidOf(id: string): string {
  return jidNormalizedUser(id.endsWith('@c.us') ? `${id.slice(0, -'@c.us'.length)}@s.whatsapp.net` : id);
}
