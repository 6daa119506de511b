import { randomBytes } from 'node:crypto';
import { FakeWebChannels } from './channels.js';
import { FakeWebContacts } from './contacts.js';
import { FakeWebGroups } from './groups.js';
import { FakeWebLabels } from './labels.js';
import { FakeWebPresences } from './presences.js';

/** The account a phone plays: its number's id (`<number>@c.us`), push name and, optionally, its lid. */
export interface FakeWebAccount {
  readonly id: string;
  readonly pushName: string;
  readonly lid?: string;
  readonly platform?: string;
}

/** A message as the page models it, serialized: what the page sent and what the phone delivers. */
export interface FakeWebMessage {
  readonly id: { fromMe: boolean; remote: string | { _serialized: string }; id: string; _serialized?: string; participant?: unknown };
  readonly type: string;
  readonly body?: string;
  readonly t: number;
  readonly from: string | { _serialized: string };
  readonly to: string | { _serialized: string };
  readonly [key: string]: unknown;
}

/** WhatsApp's ack levels, as WhatsApp Web numbers them. */
export const ACK = { ERROR: -1, PENDING: 0, SERVER: 1, DEVICE: 2, READ: 3, PLAYED: 4 } as const;

const serialized = (value: string | { _serialized: string }): string => (typeof value === 'string' ? value : value._serialized);

/**
 * The phone of one account, as the fake WhatsApp Web's test side plays it: contacts write to the
 * account through it, receipts come back through it, and it keeps what the paired page did.
 */
export class FakeWebPhone {
  /** Every message the page sent, in order. */
  readonly sent: FakeWebMessage[] = [];
  /** Chats the page marked read. */
  readonly seen: string[] = [];
  /** Every other action the page reported (`{type, ...}`), in order. */
  readonly actions: { type: string; [key: string]: unknown }[] = [];
  /** Every file the page uploaded (a media message's bytes), in order: the direct path it was given, its kind and bytes. */
  readonly uploads: { directPath: string; mediaType: string; mimetype: string; data: Buffer }[] = [];
  /** A business account's labels and the chats they are on. */
  readonly labels: FakeWebLabels = new FakeWebLabels((message) => this.reach(message));
  /** The channels (newsletters) the servers know, and the account's part in each. */
  readonly channels: FakeWebChannels = new FakeWebChannels({ push: (message) => this.reach(message) });
  /** The status updates the page posted (`{type: 'text', text, color, font}`, or a media message's fields), in order. */
  readonly statuses: Record<string, unknown>[] = [];
  /** The calls the page declined (the reject stanzas it cast), in order. */
  readonly rejectedCalls: { id: string; from: string }[] = [];
  /** The ids of waiting messages the page asked their senders to send again, in order. */
  readonly resendRequests: string[] = [];
  /** The WhatsApp call links the page had made for event messages, in order. */
  readonly callLinks: { kind: 'voice' | 'video'; startTime: number; link: string }[] = [];
  /** The pins (a duration in seconds) and unpins the page sent, in order. */
  readonly pins: { msgId: string; pin: boolean; duration: number }[] = [];
  /** The names the page gave the account (profile.setName), in order. */
  readonly names: string[] = [];
  /** The page logged out (the device unlinked itself). */
  loggedOut = false;
  /** Numbers that have no WhatsApp account (`<number>@c.us`): checks, adds and group creation refuse them. */
  readonly unregistered = new Set<string>();
  /** The account's groups, as the servers keep them; the test plays their other members through it. */
  readonly groups: FakeWebGroups;
  /** Other accounts as the servers know them (address book, About, pictures), blocks, presence and chat states. */
  readonly contacts: FakeWebContacts = new FakeWebContacts(
    (message) => this.reach(message),
    (id) => !id.endsWith('@g.us') || this.groups.mayEditInfo(id),
  );
  /** Other accounts' presence: the test makes them come online, type, record or go offline; the page's subscriptions. */
  readonly presences: FakeWebPresences = new FakeWebPresences((message) => this.reach(message));
  /** Messages each chat had before this device was linked, newest last: the page loads them on demand. */
  private readonly history = new Map<string, Record<string, unknown>[]>();
  /** Files of media messages the phone delivered, by `directPath`. */
  private readonly files = new Map<string, Buffer>();

  constructor(
    readonly account: FakeWebAccount,
    /** Sends a message to the pages signed in to this account; answers how many it reached. */
    private readonly toPages: (message: Record<string, unknown>) => number,
  ) {
    this.groups = new FakeWebGroups({
      contactId: account.id,
      unregistered: this.unregistered,
      push: (message) => this.reach(message),
      notify: (group, { author, ...fields }) => this.deliver(group, { type: 'gp2', author, ...fields }),
    });
  }

  get contactId(): string {
    return this.account.id;
  }

  /** A contact (`<number>` or `<number>@c.us`) writes text; resolves with the message's own id. */
  text(from: string, body: string, extra: Record<string, unknown> = {}): string {
    return this.deliver(from, { type: 'chat', body, ...extra });
  }

  /**
   * A message of any kind from a contact or a group member (`extra.author`), with the fields
   * WhatsApp Web's message model has for that kind (`type`, `body`, `lat`, `lng`, ...).
   */
  deliver(from: string, fields: Record<string, unknown>): string {
    const chat = from.includes('@') ? from : `${from}@c.us`;
    const id = randomBytes(10).toString('hex').toUpperCase();
    const msg = {
      id: { fromMe: false, remote: chat, id, ...(fields.author ? { participant: fields.author } : {}) },
      t: Math.floor(Date.now() / 1000),
      from: chat,
      to: this.account.id,
      // On the account's own device: delivered to it.
      ack: ACK.DEVICE,
      ...fields,
    };
    this.reach({ type: 'message', msg });
    return id;
  }

  /**
   * A contact sends a file: the message carries a `directPath`, from which the page downloads the
   * bytes (WAWebDownloadManager), as WhatsApp Web does from the media servers.
   */
  media(
    from: string,
    file: { type: 'image' | 'video' | 'audio' | 'ptt' | 'document' | 'sticker'; mimetype: string; data: Buffer; filename?: string; caption?: string },
  ): string {
    const directPath = `/v/t62/${randomBytes(12).toString('hex')}`;
    this.files.set(directPath, file.data);
    const { data, ...fields } = file;
    return this.deliver(from, { ...fields, directPath, size: data.length, mediaKey: randomBytes(32).toString('base64') });
  }

  /** A contact calls the account (voice, or video); answers the call's id. */
  call(from: string, options: { isVideo?: boolean; isGroup?: boolean } = {}): string {
    const id = randomBytes(16).toString('hex').toUpperCase();
    const peerJid = from.includes('@') ? from : `${from}@c.us`;
    this.reach({ type: 'call', call: { id, peerJid, isVideo: Boolean(options.isVideo), isGroup: Boolean(options.isGroup), participants: [] } });
    return id;
  }

  /** A message whose keys the account's device does not have yet (it shows as waiting); answers its id. */
  waiting(from: string): string {
    return this.deliver(from, { type: 'ciphertext', subtype: undefined, body: undefined });
  }

  /** The sender's phone sent a waiting message again: the page decrypts it into `fields` (a `chat` text...). */
  decrypted(from: string, id: string, fields: Record<string, unknown>): void {
    const chat = from.includes('@') ? from : `${from}@c.us`;
    this.reach({ type: 'msg-update', id: `false_${chat}_${id}`, changes: fields });
  }

  /**
   * Text a contact wrote before this device was linked, newest last: on the phone, not on the
   * page, until the page loads a chat's earlier messages. Answers the messages' ids.
   */
  earlier(from: string, bodies: readonly string[]): string[] {
    const chat = from.includes('@') ? from : `${from}@c.us`;
    const start = Math.floor(Date.now() / 1000) - 3600;
    const msgs = bodies.map((body, index) => ({
      id: { fromMe: false, remote: chat, id: randomBytes(10).toString('hex').toUpperCase() },
      type: 'chat',
      body,
      t: start + index,
      from: chat,
      to: this.account.id,
      ack: ACK.READ,
    }));
    this.history.set(chat, [...msgs, ...(this.history.get(chat) ?? [])]);
    // The account has not read them: the chat's unread count, which WhatsApp Web syncs, has them.
    this.reach({ type: 'unread', chat, count: msgs.length });
    return msgs.map((msg) => msg.id.id);
  }

  /** A contact's phone changes one of this account's or their own messages (`edit`, `revoke`, `reaction`, `vote` as the page names them). */
  change(type: 'edit' | 'revoke' | 'reaction' | 'vote', fields: Record<string, unknown>): void {
    this.reach({ type, ...fields });
  }

  /** The recipient's phone got (DEVICE), read (READ) or played (PLAYED) a message this account sent. */
  receipt(messageId: string, ack: number = ACK.DEVICE): void {
    const sent = this.sent.find((message) => message.id.id === messageId);
    if (!sent) throw new Error(`the page sent no message ${messageId}`);
    this.reach({ type: 'ack', ids: [sent.id._serialized], ack });
  }

  /** What the page sent to a chat, newest last. */
  sentTo(chat: string): FakeWebMessage[] {
    return this.sent.filter((message) => serialized(message.to) === chat);
  }

  /** The page reported something it did; answers what the page is told back. */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    switch (message.type) {
      case 'send': {
        const msg = message.msg as FakeWebMessage;
        this.sent.push(msg);
        return { t: Math.floor(Date.now() / 1000) };
      }
      case 'seen':
        this.seen.push(String(message.chat));
        return undefined;
      case 'upload': {
        const directPath = `/v/t62/${randomBytes(12).toString('hex')}`;
        const data = Buffer.from(String(message.data), 'base64');
        this.uploads.push({ directPath, mediaType: String(message.mediaType), mimetype: String(message.mimetype), data });
        // Served back from its direct path, as the media servers do.
        this.files.set(directPath, data);
        return { directPath };
      }
      case 'stanza': {
        // The only stanza the page casts today: declining a call.
        const stanza = message.stanza as {
          tag: string;
          attrs: Record<string, string>;
          content: { tag: string; attrs: Record<string, string> }[] | null;
        };
        for (const child of stanza.content ?? []) {
          if (stanza.tag === 'call' && child.tag === 'reject') this.rejectedCalls.push({ id: child.attrs['call-id']!, from: stanza.attrs.to! });
        }
        return undefined;
      }
      case 'status':
        this.statuses.push(message.status as Record<string, unknown>);
        return undefined;
      case 'call-link': {
        const kind = message.kind === 'voice' ? 'voice' : 'video';
        const link = `https://call.whatsapp.com/${kind}/${randomBytes(16).toString('base64url')}`;
        this.callLinks.push({ kind, startTime: Number(message.startTime), link });
        return link;
      }
      case 'pin': {
        const msgId = String(message.msgId);
        // In a group, pinning is editing its info: refused to a member while only admins may.
        const chat = msgId.split('_')[1]!;
        if (this.groups.get(chat) && !this.groups.mayEditInfo(chat)) throw new Error(`not-authorized: only admins of ${chat} may pin`);
        this.pins.push({ msgId, pin: message.pin === true, duration: Number(message.duration) });
        return undefined;
      }
      case 'profile-name':
        this.names.push(String(message.name));
        return undefined;
      case 'earlier': {
        // All the phone has left for the chat, at once; the next ask gets none.
        const older = this.history.get(String(message.chat)) ?? [];
        this.history.delete(String(message.chat));
        return older;
      }
      case 'resend':
        this.resendRequests.push(...(message.ids as string[]));
        return undefined;
      case 'exists':
        return this.unregistered.has(String(message.id)) ? null : { wid: String(message.id) };
      case 'media':
        return this.files.get(String(message.directPath))?.toString('base64') ?? null;
      default: {
        if (message.type.startsWith('group-')) return this.groups.fromPage(message);
        if (message.type.startsWith('contact-')) return this.contacts.fromPage(message);
        if (message.type.startsWith('label-')) return this.labels.fromPage(message);
        if (message.type.startsWith('channel-')) return this.channels.fromPage(message);
        if (message.type.startsWith('presence-')) return this.presences.fromPage(message);
        const { rid: _rid, ...action } = message;
        this.actions.push(action);
        return undefined;
      }
    }
  }

  private reach(message: Record<string, unknown>): void {
    if (this.toPages(message) === 0) throw new Error(`no page is signed in to ${this.account.id}`);
  }
}
