import type { Label, LabelledChat } from '@switchboard/protocol';
import { invalidField } from '../../command-error.js';
import { labelRecord } from '../webjs/labels.js';
import { wid } from '../webjs/webjs-ids.js';
import { refused, type WppChat, type WppChatsClient } from './wpp-chats.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';

/** A label as wa-js's `labels.getAllLabels` answers it: `color` is its colour as a number (0xAARRGGBB). */
export interface WppLabel {
  readonly id: string;
  readonly name: string;
  readonly color: number | null;
}

/** The slice of WPPConnect's client (its labels and retriever layers) the label operations use. */
export interface WppLabelsClient extends Pick<WppChatsClient, 'getChatById'> {
  readonly page: WppPage;
  getAllLabels(): Promise<WppLabel[]>;
  listChats(options: { withLabels: string[] }): Promise<(WppChat & { readonly id: string | { readonly _serialized: string } })[]>;
}

/** A label change as wa-js takes it (`WPP.labels.addOrRemoveLabels`). */
interface LabelAction {
  readonly labelId: string;
  readonly type: 'add' | 'remove';
}

/**
 * Chat labels on WPP (WhatsApp Business), through WPPConnect's client: `getAllLabels`, a chat's
 * `labels` (`getChatById`), `listChats({withLabels})`, and wa-js's `labels.addOrRemoveLabels`,
 * called in the page and awaited (WPPConnect's own wrapper does not wait for it). WPPConnect
 * reports no label changes made here, so a change emits its own `label.chat.*` events, from the
 * chat's labels before and after, as on WEBJS.
 */
export class WppLabels {
  constructor(private readonly connection: WppConnection) {}

  async labels(): Promise<Label[]> {
    const labels = await this.client()
      .getAllLabels()
      .catch((error: unknown) => refused('list the labels', error, ''));
    return labels.map((label) => labelRecord({ id: label.id, name: label.name, hexColor: hexOf(label.color) }));
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    const [all, ids] = await Promise.all([this.labels(), this.labelIdsOf(chatId)]);
    return all.filter((label) => ids.includes(label.id));
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    const chats = await this.client()
      .listChats({ withLabels: [id] })
      .catch((error: unknown) => refused(`list the chats of label ${id}`, error, ''));
    return chats.map((chat) => ({ id: wid(chat.id) }));
  }

  /** The chat gets exactly these labels: the others come off. */
  async setChatLabels({ chatId, labelIds }: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    const all = await this.labels();
    labelIds.forEach((id, index) => {
      if (!all.some((label) => label.id === id))
        throw invalidField(`labels[${index}].id`, `session '${this.connection.context.session}' has no label ${id}`);
    });
    const before = await this.labelIdsOf(chatId);
    const actions: LabelAction[] = [
      ...before.filter((id) => !labelIds.includes(id)).map((labelId) => ({ labelId, type: 'remove' as const })),
      ...labelIds.filter((id) => !before.includes(id)).map((labelId) => ({ labelId, type: 'add' as const })),
    ];
    if (actions.length === 0) return;
    await this.client()
      .page.evaluate(({ chatId, actions }) => (globalThis as unknown as WppLabelsPage).WPP.labels.addOrRemoveLabels([chatId], actions), {
        chatId,
        actions,
      })
      .catch((error: unknown) => refused(`label ${chatId}`, error, chatId));
    const label = (id: string) => all.find((known) => known.id === id) ?? null;
    for (const { labelId, type } of actions)
      this.connection.context.emit(type === 'add' ? 'label.chat.added' : 'label.chat.deleted', { labelId, chatId, label: label(labelId) });
  }

  private async labelIdsOf(chatId: string): Promise<string[]> {
    const chat = await this.client()
      .getChatById(chatId)
      .catch((error: unknown) => refused(`read the labels of ${chatId}`, error, chatId));
    return (chat?.labels ?? []).map(String);
  }

  private client(): WppLabelsClient {
    return this.connection.workingClient();
  }
}

/** `#rrggbb` of wa-js's colour number; none without one. */
function hexOf(color: number | null): string | undefined {
  return typeof color === 'number' ? `#${(color & 0xffffff).toString(16).padStart(6, '0')}` : undefined;
}

/** What the label change reads of wa-js in the page (`window.WPP`). */
interface WppLabelsPage {
  WPP: { labels: { addOrRemoveLabels(chatIds: string[], options: readonly LabelAction[]): Promise<unknown> } };
}
