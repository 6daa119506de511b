import type { Label } from '@switchboard/protocol';

/** WhatsApp Business label colours, by the index the protocol carries (20 of them). */
const PALETTE = [
  '#ff9484', '#64c4ff', '#fed428', '#dfaef0', '#9ab6c1', '#56ccb4', '#fe9dfe', '#d3a91f', '#6f7bcf', '#d8e651',
  '#01d0e2', '#ffc5c7', '#92ceac', '#f64847', '#00a1f2', '#83e421', '#ffae07', '#b4ebff', '#9ba6ff', '#9568cf',
];

export function labelColorHex(color: number): string {
  return PALETTE[((color % PALETTE.length) + PALETTE.length) % PALETTE.length]!;
}

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
