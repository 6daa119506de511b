import { type Label, labelColorHex } from '@switchboard/protocol';

/**
 * The labels seen so far, so that `label.chat.added` can carry the label. Right after pairing a
 * chat can be labelled before its label arrives: the event then carries `label: null` (spec 6.2).
 */
export class LabelBook {
  private readonly labels = new Map<string, Label>();

  upsert(id: string, name: string, color: number): Label {
    const label: Label = { id, name, color, colorHex: labelColorHex(color) };
    this.labels.set(id, label);
    return label;
  }

  delete(id: string, color: number): Label {
    const known = this.labels.get(id);
    this.labels.delete(id);
    return { ...(known ?? { id, color, colorHex: labelColorHex(color) }), name: '' };
  }

  get(id: string): Label | null {
    return this.labels.get(id) ?? null;
  }
}
