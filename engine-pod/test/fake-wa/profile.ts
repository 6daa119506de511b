import { randomBytes } from 'node:crypto';
import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren, jidDecode } from '@whiskeysockets/baileys';
import type { IqAnswer } from './iq-answers.js';

/**
 * What the server keeps of an account's own profile as its linked devices change it: the About
 * text (`status` queries) and the picture (`w:profile:picture`). The name is app state (a
 * `pushNameSetting` patch, FakeAppState.uploaded). And its block list (`blocklist` queries).
 */
export class FakeProfile {
  about: string | null = null;
  /** The JPEG the client uploaded, as it sent it (Baileys resizes it to 640x640 first). */
  picture: { readonly id: string; readonly jpeg: Buffer } | null = null;

  /** The users the account blocked, by the jid the client named them with. */
  readonly blocked = new Set<string>();

  constructor(private readonly phone: string) {}

  /**
   * `xmlns="blocklist"`: a get answers the list, a set's `item` blocks or unblocks its jid
   * (`action`) and answers the list as it is then (whatsmeow reads it; Baileys does not).
   */
  blocklist(iq: BinaryNode): IqAnswer {
    if (iq.attrs.type === 'set') {
      for (const item of getBinaryNodeChildren(iq, 'item')) {
        const jid = item.attrs.jid ?? '';
        if (item.attrs.action === 'block') this.blocked.add(jid);
        else if (item.attrs.action === 'unblock') this.blocked.delete(jid);
        else return { error: { code: '400', text: 'bad-request' } };
      }
    }
    return { content: [{ tag: 'list', attrs: {}, content: [...this.blocked].map((jid) => ({ tag: 'item', attrs: { jid } })) }] };
  }

  /** The picture's address on the service's CDN, as `profilePictureUrl` reads it. */
  get pictureUrl(): string | null {
    return this.picture ? `https://pps.whatsapp.net/v/t61/${this.phone}_${this.picture.id}.jpg` : null;
  }

  /** `xmlns="status"`, a set: the About text. */
  setAbout(iq: BinaryNode): IqAnswer {
    const status = getBinaryNodeChild(iq, 'status');
    if (!status || iq.attrs.type !== 'set') return null;
    this.about = Buffer.from(status.content as Uint8Array).toString('utf8');
    return { content: [] };
  }

  /**
   * `xmlns="w:profile:picture"`: a get answers the URL (404 when there is none, as the service
   * does), a set with a `picture` child replaces it, a set without one removes it. Only the
   * account's own picture is known here: other targets have none.
   */
  answer(iq: BinaryNode): IqAnswer {
    const target = iq.attrs.target ? jidDecode(iq.attrs.target)?.user : this.phone;
    if (iq.attrs.type === 'get') {
      const url = target === this.phone ? this.pictureUrl : null;
      if (!url) return { error: { code: '404', text: 'item-not-found' } };
      return { content: [{ tag: 'picture', attrs: { id: this.picture!.id, type: 'image', url, direct_path: new URL(url).pathname } }] };
    }
    if (target !== this.phone) return { error: { code: '401', text: 'not-authorized' } };
    const picture = getBinaryNodeChild(iq, 'picture');
    this.picture = picture ? { id: String(randomBytes(4).readUInt32BE()), jpeg: Buffer.from(picture.content as Uint8Array) } : null;
    return { content: this.picture ? [{ tag: 'picture', attrs: { id: this.picture.id } }] : [] };
  }
}
