import { z } from 'zod';

/** Spec 2.9. */
export const Label = z
  .object({
    id: z.string().meta({ examples: ['1'] }),
    name: z.string().meta({ description: 'Empty in `label.deleted`', examples: ['Lead'] }),
    color: z
      .number()
      .int()
      .meta({ description: "Index into the messaging app's palette, not a colour value", examples: [0] }),
    colorHex: z
      .string()
      .regex(/^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/, {
        message: 'must be "#" followed by 3, 6 or 8 hex digits',
      })
      .meta({ examples: ['#ff9485'] }),
  })
  .meta({ id: 'Label' });
export type Label = z.infer<typeof Label>;

/** The messaging app's 20 label colours, by the index `color` carries. */
const LABEL_PALETTE = [
  '#ff9484',
  '#64c4ff',
  '#fed428',
  '#dfaef0',
  '#9ab6c1',
  '#56ccb4',
  '#fe9dfe',
  '#d3a91f',
  '#6f7bcf',
  '#d8e651',
  '#01d0e2',
  '#ffc5c7',
  '#92ceac',
  '#f64847',
  '#00a1f2',
  '#83e421',
  '#ffae07',
  '#b4ebff',
  '#9ba6ff',
  '#9568cf',
] as const;

/** `colorHex` of a label colour index (spec 2.9). */
export function labelColorHex(color: number): string {
  return LABEL_PALETTE[((color % LABEL_PALETTE.length) + LABEL_PALETTE.length) % LABEL_PALETTE.length]!;
}

/** The palette index of a `#rrggbb` colour: the nearest of the 20 (the app has no other colours). */
export function labelColorOf(colorHex: string): number {
  const rgb = (hex: string) => {
    const digits = hex.slice(1);
    const full = digits.length < 6 ? [...digits.slice(0, 3)].map((digit) => digit + digit).join('') : digits.slice(0, 6);
    return [0, 2, 4].map((at) => parseInt(full.slice(at, at + 2), 16));
  };
  const wanted = rgb(colorHex);
  const distance = (hex: string) => rgb(hex).reduce((sum, value, at) => sum + (value - wanted[at]!) ** 2, 0);
  return LABEL_PALETTE.reduce((best, hex, index) => (distance(hex) < distance(LABEL_PALETTE[best]!) ? index : best), 0);
}

export const LabelId = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z_-]{1,64}$/, { message: 'must be a label id: 1-64 letters, digits, "_" or "-"' })
  .meta({ examples: ['1'] });

/** A label as a command makes or changes it: its name and palette index. */
export const LabelSpec = z.object({
  name: z.string().trim().min(1).max(100),
  color: z
    .number()
    .int()
    .min(0)
    .max(LABEL_PALETTE.length - 1),
});
export type LabelSpec = z.infer<typeof LabelSpec>;

/**
 * `POST /api/{session}/labels`, `PUT /api/{session}/labels/{labelId}`. The colour by its palette
 * index (`color`) or as `colorHex`, which becomes the nearest of the palette's; neither: the first.
 */
export const LabelBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ examples: ['Lead'] }),
    colorHex: Label.shape.colorHex.nullable().optional(),
    color: z
      .number()
      .int()
      .min(0)
      .max(LABEL_PALETTE.length - 1)
      .nullable()
      .optional()
      .meta({ description: `Palette index, 0 to ${LABEL_PALETTE.length - 1}; wins over colorHex` }),
  })
  .transform(({ name, color, colorHex }) => ({ name, color: color ?? (colorHex ? labelColorOf(colorHex) : 0) }))
  .meta({ id: 'LabelBody' });

/** `PUT /api/{session}/labels/chats/{chatId}`: the chat's labels from now on (any other is taken off). */
export const SetLabelsRequest = z.object({ labels: z.array(z.object({ id: LabelId })).max(20) }).meta({ id: 'SetLabelsRequest' });
export type SetLabelsRequest = z.infer<typeof SetLabelsRequest>;

/** A chat that carries a label, as `GET /api/{session}/labels/{labelId}/chats` lists them. */
export const LabelledChat = z.object({ id: z.string().meta({ examples: ['123456789@c.us'] }) }).meta({ id: 'LabelledChat' });
export type LabelledChat = z.infer<typeof LabelledChat>;
