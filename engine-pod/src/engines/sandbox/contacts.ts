import {
  type Contact,
  type Label,
  type LabelChatPayload,
  type LabelledChat,
  type LabelSpec,
  labelColorHex,
  type MeInfo,
} from '@switchboard/protocol';
import { CommandError, invalidField } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import { sandboxNumberLookup } from './directory.js';
import type { SandboxWorld } from './sandbox-world.js';

/** What the sandbox's contacts and labels need of the engine. */
export interface SandboxBookOwner {
  readonly context: EngineContext;
  readonly world: SandboxWorld;
  /** The account, or a 422 when the session is not WORKING. */
  requireWorking(): MeInfo;
}

/** What the simulated service says of everyone (docs/sandbox.md): the app's default About, and no picture. */
const DEFAULT_ABOUT = 'Hey there! I am using WhatsApp.';

/**
 * The SANDBOX account's contacts and labels (issue 16). Contacts are the people of the chats it
 * has messages in, and those it named or blocked; a number starting with `000` has no account,
 * as in check-exists. Labels change as the phone changes them, with the same `label.*` events.
 * Kept in memory, like the rest of the simulated world.
 */
export class SandboxBook {
  constructor(private readonly owner: SandboxBookOwner) {}

  async contacts(): Promise<Contact[]> {
    const me = this.owner.requireWorking();
    const world = this.owner.world;
    const ids = new Set<string>([...world.contactNames.keys(), ...world.blocked]);
    for (const record of world.messages.values()) {
      for (const id of [record.from, record.to, record.participant]) if (id && isPerson(id) && id !== me.id) ids.add(id);
    }
    return [...ids].map((id) => this.contactOf(id, me));
  }

  async contact(id: string): Promise<Contact> {
    const me = this.owner.requireWorking();
    this.requireAccount(id);
    return this.contactOf(id, me);
  }

  async about(id: string): Promise<string | null> {
    this.owner.requireWorking();
    this.requireAccount(id);
    return DEFAULT_ABOUT;
  }

  async picture(id: string): Promise<string | null> {
    this.owner.requireWorking();
    this.requireAccount(id);
    return null;
  }

  async setBlocked(id: string, blocked: boolean): Promise<void> {
    const me = this.owner.requireWorking();
    if (id === me.id) throw invalidField('contactId', 'is the account itself, which cannot block itself');
    this.requireAccount(id);
    if (blocked) this.owner.world.blocked.add(id);
    else this.owner.world.blocked.delete(id);
  }

  async update(id: string, name: { readonly firstName: string; readonly lastName: string }): Promise<void> {
    this.owner.requireWorking();
    this.requireAccount(id);
    this.owner.world.contactNames.set(id, { ...name });
  }

  async labels(): Promise<Label[]> {
    this.owner.requireWorking();
    return [...this.owner.world.labels.values()].sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
  }

  async createLabel(spec: LabelSpec): Promise<Label> {
    this.owner.requireWorking();
    const labels = this.owner.world.labels;
    // New labels count up from 1, as the messaging app numbers them.
    const id = String(Math.max(0, ...[...labels.keys()].map(Number).filter(Number.isFinite)) + 1);
    return this.upsert(id, spec);
  }

  async updateLabel(id: string, spec: LabelSpec): Promise<Label> {
    this.owner.requireWorking();
    this.requireLabel(id);
    return this.upsert(id, spec);
  }

  async deleteLabel(id: string): Promise<void> {
    this.owner.requireWorking();
    const label = this.requireLabel(id);
    // The chats carrying it lose it first, as on the phone.
    for (const [chatId, ids] of this.owner.world.labelledChats) if (ids.has(id)) this.setLabelled(chatId, id, false);
    this.owner.world.labels.delete(id);
    this.owner.context.emit('label.deleted', { ...label, name: '' });
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    this.owner.requireWorking();
    const ids = this.owner.world.labelledChats.get(chatId) ?? new Set<string>();
    return (await this.labels()).filter((label) => ids.has(label.id));
  }

  async setChatLabels(chatId: string, labelIds: readonly string[]): Promise<void> {
    this.owner.requireWorking();
    labelIds.forEach((id, index) => {
      if (!this.owner.world.labels.has(id)) throw invalidField(`labels[${index}].id`, `session '${this.owner.context.session}' has no label ${id}`);
    });
    const current = this.owner.world.labelledChats.get(chatId) ?? new Set<string>();
    for (const id of [...current]) if (!labelIds.includes(id)) this.setLabelled(chatId, id, false);
    for (const id of labelIds) if (!current.has(id)) this.setLabelled(chatId, id, true);
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    this.owner.requireWorking();
    return [...this.owner.world.labelledChats]
      .filter(([, ids]) => ids.has(id))
      .map(([chatId]) => ({ id: chatId }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  private upsert(id: string, spec: LabelSpec): Label {
    const label: Label = { id, name: spec.name, color: spec.color, colorHex: labelColorHex(spec.color) };
    this.owner.world.labels.set(id, label);
    this.owner.context.emit('label.upsert', label);
    return label;
  }

  private setLabelled(chatId: string, labelId: string, on: boolean): void {
    this.owner.world.labelChat(chatId, labelId, on);
    const payload: LabelChatPayload = { labelId, chatId, label: this.owner.world.labels.get(labelId) ?? null };
    this.owner.context.emit(on ? 'label.chat.added' : 'label.chat.deleted', payload);
  }

  private requireLabel(id: string): Label {
    const label = this.owner.world.labels.get(id);
    if (!label) {
      throw new CommandError('NOT_FOUND', `session '${this.owner.context.session}' has no label ${id}`, {
        session: this.owner.context.session,
        labelId: id,
      });
    }
    return label;
  }

  /** A 404 for a number the simulated service has no account for. */
  private requireAccount(id: string): void {
    if (id.endsWith('@c.us') && !sandboxNumberLookup(id.slice(0, -'@c.us'.length)).numberExists) {
      throw new CommandError('NOT_FOUND', `${id} has no account with the messaging service`, { session: this.owner.context.session, contactId: id });
    }
  }

  private contactOf(id: string, me: MeInfo): Contact {
    const world = this.owner.world;
    const lid = id.endsWith('@lid') ? id : world.lidOf(id);
    const phone = id.endsWith('@c.us') ? id : world.lids.get(id);
    // A contact is named by its phone number when it is known (the address book's view).
    const shown = phone ?? id;
    const name = world.contactNames.get(shown) ?? world.contactNames.get(id);
    return {
      id: shown,
      number: phone ? phone.slice(0, -'@c.us'.length) : null,
      lid: lid ?? null,
      name: name ? [name.firstName, name.lastName].filter(Boolean).join(' ') : null,
      pushname: null,
      shortName: name?.firstName ?? null,
      isMe: shown === me.id,
      isUser: true,
      isGroup: false,
      isWAContact: true,
      isMyContact: name !== undefined,
      isBlocked: world.blocked.has(shown) || world.blocked.has(id),
    };
  }
}

function isPerson(id: string): boolean {
  return id.endsWith('@c.us') || id.endsWith('@lid');
}
