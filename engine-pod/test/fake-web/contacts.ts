/** A contact in the account's address book, as the page's contact model has it. */
export interface FakeWebContact {
  readonly id: string;
  readonly name?: string;
  readonly pushname?: string;
  readonly shortName?: string;
  readonly isBusiness?: boolean;
}

/**
 * What the servers know of other accounts, and what the page told them about this one: address
 * book entries, About texts, profile pictures, the block list, the account's presence and its
 * chat states (typing, recording, paused), in the order the page sent them.
 */
export class FakeWebContacts {
  /** Contacts blocked now. */
  readonly blocked = new Set<string>();
  /** Every block and unblock the page asked for, in order. */
  readonly blockChanges: { id: string; blocked: boolean }[] = [];
  /** The account's presence as the page set it (`available`, `unavailable`), in order. */
  readonly presences: string[] = [];
  /** The chat states the page sent (`composing`, `recording`, `paused`), in order. */
  readonly chatStates: { chat: string; state: string }[] = [];
  /** Contacts the page saved (contacts.update), by id: the name WhatsApp Web made and whether the phone's address book gets it. */
  readonly saved = new Map<string, { fullName: string; shortName: string; syncToAddressbook: boolean }>();
  /** The account's own About text, as the page last set it. */
  myAbout: string | null = null;
  private readonly abouts = new Map<string, string>();
  private readonly pictures = new Map<string, string>();

  /** The pictures the page set (the account's own, or a group's), as the library made them: a JPEG data URL. */
  readonly pictureUploads: { id: string; picture: string }[] = [];

  constructor(
    private readonly push: (message: Record<string, unknown>) => void,
    /** Whether the account may change this account's or group's picture (a group's: its admins, unless anyone may edit its info). */
    private readonly mayChangePicture: (id: string) => boolean = () => true,
  ) {}

  /** The phone's address book: saved contacts, told to the page as WhatsApp Web syncs them. */
  addressBook(contacts: readonly FakeWebContact[]): void {
    this.push({ type: 'contacts', contacts: contacts.map((contact) => ({ ...contact, isMyContact: true, isWAContact: true })) });
  }

  /** A contact's About text, as anyone may read it. */
  setAbout(id: string, about: string): void {
    this.abouts.set(id, about);
  }

  /** Where the servers keep a contact's (or group's) picture now; undefined with none. */
  pictureOf(id: string): string | undefined {
    return this.pictures.get(id);
  }

  /** A contact's (or group's) profile picture URL (none: WhatsApp answers 404). */
  setPicture(id: string, url: string): void {
    this.pictures.set(id, url);
    this.pictureChanged(id);
  }

  /** The servers tell the signed-in pages of a changed picture, as WhatsApp does; a page signing in later asks. */
  private pictureChanged(id: string): void {
    try {
      this.push({ type: 'picture', id, url: this.pictures.get(id) ?? null });
    } catch {
      // No page is signed in: there is no one to tell.
    }
  }

  /** A page's request about contacts or presence; answers what the page is told back. */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    const id = String(message.id);
    switch (message.type) {
      case 'contact-about':
        return { status: this.abouts.get(id) ?? null };
      case 'contact-picture': {
        const url = this.pictures.get(id);
        if (!url) throw new Error(`item-not-found: ${id} has no picture`);
        return { eurl: url };
      }
      case 'contact-my-about':
        this.myAbout = String(message.about);
        return undefined;
      case 'contact-set-picture':
        if (!this.mayChangePicture(id)) throw new Error(`not-authorized: the account may not change the picture of ${id}`);
        this.pictureUploads.push({ id, picture: String(message.picture) });
        this.pictures.set(id, `https://pps.whatsapp.net/v/t61/${encodeURIComponent(id)}-${Date.now()}.jpg`);
        this.pictureChanged(id);
        return { status: 200 };
      case 'contact-delete-picture':
        if (!this.mayChangePicture(id)) throw new Error(`not-authorized: the account may not change the picture of ${id}`);
        this.pictures.delete(id);
        this.pictureChanged(id);
        return { status: 200 };
      case 'contact-save': {
        const entry = {
          fullName: String(message.fullName),
          shortName: String(message.shortName),
          syncToAddressbook: message.syncToAddressbook === true,
        };
        this.saved.set(id, entry);
        // Synced back to the page, as WhatsApp Web hears of an address book change.
        this.push({ type: 'contacts', contacts: [{ id, name: entry.fullName, shortName: entry.shortName, isMyContact: true, isWAContact: true }] });
        return undefined;
      }
      case 'contact-block': {
        const blocked = Boolean(message.blocked);
        if (blocked) this.blocked.add(id);
        else this.blocked.delete(id);
        this.blockChanges.push({ id, blocked });
        return undefined;
      }
      case 'contact-presence':
        this.presences.push(String(message.presence));
        return undefined;
      case 'contact-chat-state':
        this.chatStates.push({ chat: String(message.chat), state: String(message.state) });
        return undefined;
      default:
        throw new Error(`the fake has no contacts request ${message.type}`);
    }
  }
}
