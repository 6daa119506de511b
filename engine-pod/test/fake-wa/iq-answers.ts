import {
  type BinaryNode,
  getAllBinaryNodeChildren,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  jidDecode,
  type WAPatchName,
} from '@whiskeysockets/baileys';
import { answerGroupIq, answerGroupPicture, type GroupIqContext } from './groups.js';
import type { FakeNewsletters } from './newsletters.js';
import type { FakePeer } from './peer.js';
import type { FakePhone } from './phone.js';

/** What answering an iq needs to know about the rest of the fake. */
export interface IqContext extends GroupIqContext {
  readonly phone: FakePhone | null;
  peer(jid: string): FakePeer;
  lidOf(jid: string): string | undefined;
  /** A user's About text (usync `status`), when it has one; the account's own is what its companion set. */
  aboutOf(jid: string): string | undefined;
  /** The `media_conn` node naming the media host, when the fake has one (`serveMedia`). */
  mediaConn(): BinaryNode | undefined;
  /** The service's channels (newsletters.ts). */
  readonly newsletters: FakeNewsletters;
}

/** The answer to an iq: the result's children, or an error code. */
export type IqAnswer = { content?: BinaryNode[] } | { error: { code: string; text: string } } | null;

const result = (content?: BinaryNode[]): IqAnswer => ({ content });

/**
 * The server's answers to the queries a Baileys client makes: enough for login (pre-key count and
 * upload, digest, props, privacy, blocklist), sending (devices, key bundles, privacy tokens),
 * app state sync and group metadata. `null` means "not known here": the caller answers an empty
 * result and logs the query.
 */
export function answerIq(context: IqContext, iq: BinaryNode): IqAnswer {
  const first = getAllBinaryNodeChildren(iq)[0];
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- any other namespace (a string, or none) falls to the default
  switch (iq.attrs.xmlns) {
    case 'encrypt':
      return encrypt(context, iq, first);
    case 'passive':
    case 'w:p':
    case 'w:stats':
    case 'md':
    case 'urn:xmpp:whatsapp:dirty':
      return result();
    case 'abt':
      return result([{ tag: 'props', attrs: { protocol: '1', hash: 'fake' }, content: [] }]);
    case 'blocklist':
      return context.phone?.profile.blocklist(iq) ?? result([{ tag: 'list', attrs: {}, content: [] }]);
    case 'privacy':
      return iq.attrs.type === 'get' ? result([privacySettings()]) : result([{ tag: 'tokens', attrs: {}, content: [] }]);
    case 'usync':
      return result([usync(context, getBinaryNodeChild(iq, 'usync'))]);
    case 'w:sync:app:state': {
      const phone = context.phone;
      if (!phone) return null;
      const collections = getBinaryNodeChildren(getBinaryNodeChild(iq, 'sync'), 'collection');
      for (const collection of collections) {
        const patch = getBinaryNodeChild(collection, 'patch');
        if (patch) phone.appState.upload(collection.attrs.name as WAPatchName, patch.content as Uint8Array);
      }
      return result([phone.appState.syncAnswer(collections)]);
    }
    case 'status':
      // whatsmeow asks whom statuses go to before it posts one: the default, the account's contacts.
      if (first?.tag === 'privacy' && iq.attrs.type === 'get') return result([statusPrivacy()]);
      return context.phone?.profile.setAbout(iq) ?? null;
    case 'w:profile:picture': {
      const group = iq.attrs.target?.endsWith('@g.us') ? context.group(iq.attrs.target) : undefined;
      if (group) return answerGroupPicture(group, context.phone?.phone ?? '', iq);
      return context.phone?.profile.answer(iq) ?? null;
    }
    case 'w:m': {
      const mediaConn = first?.tag === 'media_conn' ? context.mediaConn() : undefined;
      return mediaConn ? result([mediaConn]) : null;
    }
    case 'w:g2':
      return answerGroupIq(context, iq);
    case 'w:mex':
      return context.phone ? context.newsletters.answerMex(context.phone.phone, iq) : null;
    case 'newsletter':
      return context.newsletters.answerNewsletterIq(iq);
    default:
      return null;
  }
}

function encrypt(context: IqContext, iq: BinaryNode, first: BinaryNode | undefined): IqAnswer {
  const phone = context.phone;
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- any other child (a string, or none) falls to the default
  switch (first?.tag) {
    case 'count':
      return result([{ tag: 'count', attrs: { value: String(phone?.preKeysOnServer ?? 0) } }]);
    case 'digest':
      return result([{ tag: 'digest', attrs: {}, content: [] }]);
    case 'key': {
      const users = getBinaryNodeChildren(first, 'user').map((user) => user.attrs.jid ?? '');
      return result([{ tag: 'list', attrs: {}, content: users.map((jid) => context.peer(jid).keyBundle(jid)) }]);
    }
    case 'rotate':
      return result();
    default:
      if (iq.attrs.type === 'set' && phone) {
        // The pre-key upload: registration, identity, the list of one-time keys, the signed key.
        phone.preKeysUploaded(iq);
        return result();
      }
      return null;
  }
}

function privacySettings(): BinaryNode {
  const settings = { readreceipts: 'all', last: 'all', online: 'all', profile: 'all', status: 'all', groupadd: 'all' };
  return {
    tag: 'privacy',
    attrs: {},
    content: Object.entries(settings).map(([name, value]) => ({ tag: 'category', attrs: { name, value } })),
  };
}

function statusPrivacy(): BinaryNode {
  return { tag: 'privacy', attrs: {}, content: [{ tag: 'list', attrs: { type: 'contacts', default: 'true' }, content: [] }] };
}

/**
 * Device lists (each contact has its phone, device 0; the account also has its companion), the
 * LID of contacts that have one, "is on WhatsApp" for phone numbers, and About texts (`status`).
 */
function usync(context: IqContext, request: BinaryNode | undefined): BinaryNode {
  const protocols = getAllBinaryNodeChildren(getBinaryNodeChild(request, 'query') ?? { tag: 'query', attrs: {} }).map((p) => p.tag);
  const users = getBinaryNodeChildren(getBinaryNodeChild(request, 'list'), 'user').map((user) => {
    // `+<number>` (Baileys) or `+<number>@c.us` (whatsmeow).
    const phone = (getBinaryNodeChild(user, 'contact')?.content as Uint8Array | string | undefined)
      ?.toString()
      .replace(/^\+/, '')
      .replace(/@c\.us$/, '');
    const jid = user.attrs.jid ?? `${phone}@s.whatsapp.net`;
    const content: BinaryNode[] = [];
    for (const protocol of protocols) {
      if (protocol === 'devices') content.push(devices(context, jid));
      if (protocol === 'contact') content.push({ tag: 'contact', attrs: { type: context.isRegistered(jidDecode(jid)?.user ?? '') ? 'in' : 'out' } });
      const lid = protocol === 'lid' ? context.lidOf(jid) : undefined;
      if (lid) content.push({ tag: 'lid', attrs: { val: lid } });
      const about = protocol === 'status' ? context.aboutOf(jid) : undefined;
      if (about !== undefined) content.push({ tag: 'status', attrs: { t: String(Math.floor(Date.now() / 1000)) }, content: Buffer.from(about) });
    }
    return { tag: 'user', attrs: { jid }, content };
  });
  return {
    tag: 'usync',
    attrs: { sid: request?.attrs.sid ?? '', index: '0', last: 'true' },
    content: [
      { tag: 'result', attrs: {}, content: protocols.map((tag) => ({ tag, attrs: {} })) },
      { tag: 'list', attrs: {}, content: users },
    ],
  };
}

function devices(context: IqContext, jid: string): BinaryNode {
  const list: BinaryNode[] = [{ tag: 'device', attrs: { id: '0' } }];
  const phone = context.phone;
  const user = jidDecode(jid)?.user;
  if (phone?.companion && (user === phone.phone || user === phone.lid)) {
    list.push({ tag: 'device', attrs: { id: String(phone.companion.device), 'key-index': '1' } });
  }
  return { tag: 'devices', attrs: {}, content: [{ tag: 'device-list', attrs: {}, content: list }] };
}
