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
