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
