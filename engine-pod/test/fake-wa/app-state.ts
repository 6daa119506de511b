import { randomBytes } from 'node:crypto';
import {
  type BinaryNode,
  type ChatModification,
  chatModificationToAppPatch,
  decodePatches,
  encodeSyncdPatch,
  type LTHashState,
  type WAPatchName,
  newLTHashState,
  proto,
} from '@whiskeysockets/baileys';

interface Collection {
  state: LTHashState;
  patches: { version: number; bytes: Uint8Array }[];
}

/**
 * One account's app state (the syncd collections: labels, archive, push name...), as the server
 * keeps it for the phone. Patches are made with Baileys' own encoder, so MACs and LT hashes are
 * the real ones, encrypted with the key the phone shared with the companion.
 */
export class FakeAppState {
  private readonly keyId = randomBytes(6);
  private readonly keyData = proto.Message.AppStateSyncKeyData.fromObject({
    keyData: randomBytes(32),
    fingerprint: { rawId: 1, currentIndex: 0, deviceIndexes: [0] },
    timestamp: Date.now(),
  });
  private readonly collections = new Map<string, Collection>();
  private uploads: Promise<void> = Promise.resolve();
  /** What linked devices changed (`upload`), decoded: each mutation's index and action, in order. */
  readonly uploaded: { collection: string; index: string[]; action: proto.ISyncActionValue }[] = [];

  /** The `APP_STATE_SYNC_KEY_SHARE` the phone sends a new companion. */
  keyShare(): proto.IMessage {
    return {
      protocolMessage: {
        type: proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE,
        appStateSyncKeyShare: { keys: [{ keyId: { keyId: this.keyId }, keyData: this.keyData }] },
      },
    };
  }

  /** Records a change as the phone would; returns the collection it went to. */
  async change(modification: ChatModification, jid: string): Promise<string> {
    // After the patches linked devices uploaded: each is a version of the collection, in order, as on the server.
    await this.uploads;
    const create = chatModificationToAppPatch(modification, jid);
    const collection = this.collection(create.type);
    const { patch, state } = await encodeSyncdPatch(create, this.keyId.toString('base64'), collection.state, async () => this.keyData);
    collection.state = state;
    const bytes = proto.SyncdPatch.encode({ ...patch, version: { version: state.version } }).finish();
    collection.patches.push({ version: state.version, bytes });
    return create.type;
  }

  /**
   * A patch a linked device sent (a `w:sync:app:state` set with a `patch`): the next version of
   * its collection at once (the client fetches it back right after the answer, as whatsmeow
   * does), then decoded with the shared key, MACs checked, in order, in the background:
   * `settled()` waits for it. The patch is kept as sent: Baileys' decodePatches empties the
   * `mutations` of the patch it is given.
   */
  upload(name: WAPatchName, bytes: Uint8Array): void {
    const collection = this.collection(name);
    const version = { version: this.version(name) + 1 };
    collection.patches.push({ version: version.version, bytes: proto.SyncdPatch.encode({ ...proto.SyncdPatch.decode(bytes), version }).finish() });
    this.uploads = this.uploads.then(async () => {
      const patch = { ...proto.SyncdPatch.decode(bytes), version };
      const { state, mutationMap } = await decodePatches(name, [patch], collection.state, async () => this.keyData, {}, undefined, undefined, true);
      collection.state = state;
      for (const mutation of Object.values(mutationMap)) {
        this.uploaded.push({ collection: name, index: mutation.index, action: mutation.syncAction.value ?? {} });
      }
    });
  }

  settled(): Promise<void> {
    return this.uploads;
  }

  /** The label mutations linked devices uploaded (`label_edit`, `label_jid`), as decoded, once every upload is in. */
  async labelUploads(): Promise<FakeAppState['uploaded']> {
    await this.settled();
    return this.uploaded.filter((u) => u.index[0] === 'label_edit' || u.index[0] === 'label_jid');
  }

  version(name: string): number {
    return this.collections.get(name)?.patches.at(-1)?.version ?? 0;
  }

  /** The answer to a `w:sync:app:state` query: every patch newer than what the client has. */
  syncAnswer(requested: BinaryNode[]): BinaryNode {
    return {
      tag: 'sync',
      attrs: {},
      content: requested.map(({ attrs }) => {
        const name = attrs.name ?? '';
        const since = Number(attrs.version ?? 0);
        const newer = (this.collections.get(name)?.patches ?? []).filter((p) => p.version > since);
        return {
          tag: 'collection',
          attrs: { name, version: String(this.version(name)) },
          content: [{ tag: 'patches', attrs: {}, content: newer.map((p) => ({ tag: 'patch', attrs: {}, content: p.bytes })) }],
        };
      }),
    };
  }

  private collection(name: string): Collection {
    let found = this.collections.get(name);
    if (!found) {
      found = { state: newLTHashState(), patches: [] };
      this.collections.set(name, found);
    }
    return found;
  }
}
