import { type Label, type LabelledChat, labelColorHex, labelColorOf } from '@switchboard/protocol';
import { invalidField } from '../../command-error.js';
import type { WebjsDeps } from './deps.js';
import type { WebjsLabel } from './webjs-client.js';
import { wid } from './webjs-ids.js';

const HEX = /^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;

/** A library `Label` (id, name, hexColor) as spec 2.9's: the palette index is the nearest to its colour. */
export function labelRecord(label: WebjsLabel): Label {
  const hex = typeof label.hexColor === 'string' && HEX.test(label.hexColor) ? label.hexColor : null;
  const color = hex ? labelColorOf(hex) : 0;
  return { id: String(label.id), name: label.name ?? '', color, colorHex: hex ?? labelColorHex(color) };
}

/**
 * Chat labels on WEBJS (WhatsApp Business): `getLabels`, `getChatLabels`, `getChatsByLabelId`
 * and `addOrRemoveLabels`. whatsapp-web.js cannot create, rename or delete a label: those stay
 * 422. The library reports no label changes, so a change made here emits its own
 * `label.chat.*` events, from the chat's labels before and after.
 */
export class WebjsLabels {
  constructor(private readonly deps: WebjsDeps) {}

  async labels(): Promise<Label[]> {
    const labels = await this.deps.client().getLabels().catch(this.deps.engineError('list the labels'));
    return labels.map(labelRecord);
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    const labels = await this.deps
      .client()
      .getChatLabels(chatId)
      .catch(this.deps.engineError(`read the labels of ${chatId}`));
    return labels.map(labelRecord);
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    const chats = await this.deps
      .client()
      .getChatsByLabelId(id)
      .catch(this.deps.engineError(`list the chats of label ${id}`));
    return chats.map((chat) => ({ id: wid(chat.id) }));
  }

  /** `addOrRemoveLabels` gives the chat exactly these labels: the others come off. */
  async setChatLabels({ chatId, labelIds }: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    const all = await this.labels();
    labelIds.forEach((id, index) => {
      if (!all.some((label) => label.id === id))
        throw invalidField(`labels[${index}].id`, `session '${this.deps.context.session}' has no label ${id}`);
    });
    const before = (await this.chatLabels(chatId)).map((label) => label.id);
    await this.deps
      .client()
      .addOrRemoveLabels([...labelIds], [chatId])
      .catch(this.deps.engineError(`label ${chatId}`));
    const label = (id: string) => all.find((known) => known.id === id) ?? null;
    for (const id of before.filter((id) => !labelIds.includes(id)))
      this.deps.context.emit('label.chat.deleted', { labelId: id, chatId, label: label(id) });
    for (const id of labelIds.filter((id) => !before.includes(id)))
      this.deps.context.emit('label.chat.added', { labelId: id, chatId, label: label(id) });
  }
}
