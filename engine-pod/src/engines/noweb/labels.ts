import { type EventPayload, type Label, type LabelledChat, type LabelSpec, labelColorHex } from '@switchboard/protocol';
import type { BaileysEventMap, ChatModification } from '@whiskeysockets/baileys';
import { CommandError, invalidField, reasonOf } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import { isGroupJid, toLibraryJid } from './jids.js';
import type { Account } from './outgoing.js';

/** The book as the auth state store keeps it (`LabelBook.snapshot`). */
export interface StoredLabels {
  readonly labels: readonly Label[];
  readonly chats: readonly { readonly labelId: string; readonly chatIds: readonly string[] }[];
}

/**
 * The account's labels and the chats that carry each, as the app state sync told them. Baileys
 * keeps none: this is the engine's own record, fed by the library's `labels.*` events (the phone's
 * changes and this device's alike), and kept in the session's auth state store, because the
 * library fetches only the patches newer than the version it stored, so a restarted engine
 * would not hear of the older labels again.
 */
class LabelBook {
  private readonly labels = new Map<string, Label>();
  private readonly chats = new Map<string, Set<string>>();

  restore(stored: StoredLabels | undefined): void {
    for (const label of stored?.labels ?? []) this.labels.set(label.id, label);
    for (const { labelId, chatIds } of stored?.chats ?? []) this.chats.set(labelId, new Set(chatIds));
  }

  snapshot(): StoredLabels {
    return {
      labels: [...this.labels.values()],
      chats: [...this.chats].filter(([, chatIds]) => chatIds.size).map(([labelId, chatIds]) => ({ labelId, chatIds: [...chatIds] })),
    };
  }

  clear(): void {
    this.labels.clear();
    this.chats.clear();
  }

  /** The label as it is now; null when that is what the book had already. */
  upsert(id: string, name: string, color: number): Label | null {
    const label: Label = { id, name, color, colorHex: labelColorHex(color) };
    const known = this.labels.get(id);
    if (known && known.name === name && known.color === color) return null;
    this.labels.set(id, label);
    return label;
  }

  /** `label.deleted`'s payload (name empty), or null when the book had no such label. The chats lose it too. */
  delete(id: string): (Label & { name: '' }) | null {
    const known = this.labels.get(id);
    this.labels.delete(id);
    this.chats.delete(id);
    return known ? { ...known, name: '' as const } : null;
  }

  /** True when the chat's state changed. */
  associate(labelId: string, chatId: string, on: boolean): boolean {
    const chatIds = this.chats.get(labelId) ?? new Set<string>();
    if (chatIds.has(chatId) === on) return false;
    if (on) chatIds.add(chatId);
    else chatIds.delete(chatId);
    this.chats.set(labelId, chatIds);
    return true;
  }

  get(id: string): Label | null {
    return this.labels.get(id) ?? null;
  }

  /** By id, numbers in their order (as SANDBOX lists them). */
  list(): Label[] {
    return [...this.labels.values()].sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
  }

  chatsOf(labelId: string): string[] {
    return [...(this.chats.get(labelId) ?? [])].sort();
  }

  labelsOf(chatId: string): Label[] {
    return this.list().filter((label) => this.chats.get(label.id)?.has(chatId));
  }
}

export interface NowebLabelsDeps {
  readonly context: EngineContext;
  /** The socket while WORKING (outgoing.ts). */
  account(): Account;
  contactId(jid: string): Promise<string>;
  /** Waits until the library events emitted so far are translated (the engine's event queue). */
  translated(): Promise<void>;
  /** Keeps the book in the session's auth state store. */
  save(labels: StoredLabels): void;
}

/**
 * Labels on NOWEB (issue 16, spec 2.9 and 6.2 `label.*`): WhatsApp Business keeps them as app
 * state, so each operation is a patch the library uploads (`label_edit` for a label, `label_jid`
 * for a chat's). The library reports its own patches as it reports the phone's (`labels.edit`,
 * `labels.association`), and those reports alone change the book and emit the events, once per
 * change, so an operation waits for them before it answers.
 */
export class NowebLabels {
  private readonly book = new LabelBook();
  /** The changes in the order they came, one at a time (`serially`). */
  private changes: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: NowebLabelsDeps) {}

  restore(stored: StoredLabels | undefined): void {
    this.book.restore(stored);
  }

  /** The book as the auth state store keeps it. */
  stored(): StoredLabels {
    return this.book.snapshot();
  }

  /** Logout: the next account has labels of its own. */
  forget(): void {
    this.book.clear();
  }

  edited(label: BaileysEventMap['labels.edit']): void {
    if (label.deleted) {
      const deleted = this.book.delete(label.id);
      if (deleted) this.changed('label.deleted', deleted);
    } else {
      const upserted = this.book.upsert(label.id, label.name ?? '', label.color ?? 0);
      if (upserted) this.changed('label.upsert', upserted);
    }
  }

  async associated({ type, association }: BaileysEventMap['labels.association']): Promise<void> {
    if (!('chatId' in association) || 'messageId' in association) return;
    const chatId = isGroupJid(association.chatId) ? association.chatId : await this.deps.contactId(association.chatId);
    if (!this.book.associate(association.labelId, chatId, type === 'add')) return;
    this.changed(type === 'add' ? 'label.chat.added' : 'label.chat.deleted', {
      labelId: association.labelId,
      chatId,
      label: this.book.get(association.labelId),
    });
  }

  async labels(): Promise<Label[]> {
    this.deps.account();
    return this.book.list();
  }

  /** The next free number, as the app numbers new labels. */
  async create(spec: LabelSpec): Promise<Label> {
    return this.serially(() => this.createNow(spec));
  }

  private async createNow(spec: LabelSpec): Promise<Label> {
    this.deps.account();
    const id = String(
      Math.max(
        0,
        ...this.book
          .list()
          .map((label) => Number(label.id))
          .filter(Number.isFinite),
      ) + 1,
    );
    return this.write(id, spec, 'create');
  }

  async update(change: LabelSpec & { readonly id: string }): Promise<Label> {
    return this.serially(async () => {
      this.deps.account();
      this.require(change.id);
      return this.write(change.id, change, 'update');
    });
  }

  /** The chats carrying it lose it first, as on the phone (and as SANDBOX does). */
  async delete(id: string): Promise<void> {
    return this.serially(() => this.deleteNow(id));
  }

  private async deleteNow(id: string): Promise<void> {
    this.deps.account();
    const label = this.require(id);
    for (const chatId of this.book.chatsOf(id))
      await this.patch({ removeChatLabel: { labelId: id } }, toLibraryJid(chatId), `take label ${id} off ${chatId}`);
    await this.patch({ addLabel: { id, name: label.name, color: label.color, deleted: true } }, '', `delete label ${id}`);
    await this.deps.translated();
    // The library reports its own patches; should it not have, the book still follows the operation.
    this.edited({ id, name: label.name, color: label.color, deleted: true });
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    this.deps.account();
    return this.book.labelsOf(chatId);
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    this.deps.account();
    return this.book.chatsOf(id).map((chatId) => ({ id: chatId }));
  }

  async setChatLabels(change: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    return this.serially(() => this.setChatLabelsNow(change));
  }

  private async setChatLabelsNow({ chatId, labelIds }: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    this.deps.account();
    labelIds.forEach((id, index) => {
      if (!this.book.get(id)) throw invalidField(`labels[${index}].id`, `session '${this.deps.context.session}' has no label ${id}`);
    });
    const current = this.book.labelsOf(chatId).map((label) => label.id);
    const jid = toLibraryJid(chatId);
    for (const id of current.filter((id) => !labelIds.includes(id)))
      await this.patch({ removeChatLabel: { labelId: id } }, jid, `take label ${id} off ${chatId}`);
    for (const id of labelIds.filter((id) => !current.includes(id)))
      await this.patch({ addChatLabel: { labelId: id } }, jid, `put label ${id} on ${chatId}`);
    await this.deps.translated();
  }

  /**
   * Runs a change once the ones before it are done: each reads the book (the next free number, a
   * chat's labels now) that the one before may still change, and two creates at once would
   * otherwise both take the same number.
   */
  private serially<T>(change: () => Promise<T>): Promise<T> {
    const run = this.changes.then(change, change);
    this.changes = run.catch(() => undefined);
    return run;
  }

  private async write(id: string, spec: LabelSpec, what: string): Promise<Label> {
    await this.patch({ addLabel: { id, name: spec.name, color: spec.color, deleted: false } }, '', `${what} label ${id}`);
    await this.deps.translated();
    this.edited({ id, name: spec.name, color: spec.color, deleted: false });
    return this.book.get(id)!;
  }

  private async patch(modification: ChatModification, jid: string, what: string): Promise<void> {
    const { socket } = this.deps.account();
    await socket.chatModify(modification, jid).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not ${what}: ${reasonOf(error)}`);
    });
  }

  private require(id: string): Label {
    const label = this.book.get(id);
    if (!label) {
      throw new CommandError('NOT_FOUND', `session '${this.deps.context.session}' has no label ${id}`, {
        session: this.deps.context.session,
        labelId: id,
      });
    }
    return label;
  }

  private changed<E extends 'label.upsert' | 'label.deleted' | 'label.chat.added' | 'label.chat.deleted'>(event: E, payload: EventPayload<E>): void {
    this.deps.save(this.book.snapshot());
    this.deps.context.emit(event, payload);
  }
}
