/** A label of a WhatsApp Business account, with the chats it is on. */
export interface FakeWebLabel {
  readonly id: string;
  readonly name: string;
  readonly hexColor: string;
  readonly chats: Set<string>;
}

/**
 * A business account's labels as the servers keep them: the test defines them (WhatsApp Business
 * makes them on the phone), the page puts them on chats and takes them off, and is told the
 * labels and their chats after every change.
 */
export class FakeWebLabels {
  private readonly labels = new Map<string, FakeWebLabel>();

  constructor(private readonly push: (message: Record<string, unknown>) => void) {}

  /** Labels made on the phone; the page learns of them. */
  define(labels: readonly { id: string; name: string; hexColor: string }[]): void {
    for (const label of labels) this.labels.set(label.id, { ...label, chats: this.labels.get(label.id)?.chats ?? new Set() });
    this.sync();
  }

  /** The chats a label is on now, on the server. */
  chatsOf(id: string): string[] {
    return [...(this.labels.get(id)?.chats ?? [])].sort();
  }

  /** The page's change (`label-change`: add and remove actions on chats). */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    if (message.type !== 'label-change') throw new Error(`the fake has no labels request ${message.type}`);
    const chats = message.chats as string[];
    for (const { id, type } of message.actions as { id: string; type: 'add' | 'remove' }[]) {
      const label = this.labels.get(String(id));
      if (!label) throw new Error(`item-not-found: no label ${id}`);
      for (const chat of chats) {
        if (type === 'add') label.chats.add(chat);
        else label.chats.delete(chat);
      }
    }
    this.sync();
    return undefined;
  }

  private sync(): void {
    this.push({ type: 'labels', labels: [...this.labels.values()].map((label) => ({ ...label, chats: [...label.chats] })) });
  }
}
