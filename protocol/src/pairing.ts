import { z } from 'zod';

export const QrQuery = z.object({
  format: z.enum(['image', 'raw']).default('image'),
});

export const QRCodeValue = z.object({ value: z.string() }).meta({ id: 'QRCodeValue' });
export type QRCodeValue = z.infer<typeof QRCodeValue>;

export const Base64File = z
  .object({ mimetype: z.string(), data: z.string().meta({ description: 'Base64' }) })
  .meta({ id: 'Base64File' });

export const RequestCodeRequest = z
  .object({
    phoneNumber: z
      .string()
      .regex(/^\+?\d{6,15}$/, { message: 'must be a phone number in international format, digits only' })
      .transform((v) => v.replace(/^\+/, '')),
    method: z.enum(['sms', 'voice']).nullish().meta({ description: 'Leave empty for web pairing' }),
  })
  .meta({ id: 'RequestCodeRequest' });
export type RequestCodeRequest = z.infer<typeof RequestCodeRequest>;

export const RequestCodeResponse = z
  .object({ code: z.string().meta({ examples: ['ABCD-EFGH'] }) })
  .meta({ id: 'RequestCodeResponse' });
