import { z } from 'zod';

export const QrQuery = z.object({
  format: z.enum(['image', 'raw']).default('image'),
});

export const QRCodeValue = z.object({ value: z.string() }).meta({ id: 'QRCodeValue' });
export type QRCodeValue = z.infer<typeof QRCodeValue>;

export const Base64File = z.object({ mimetype: z.string(), data: z.string().meta({ description: 'Base64' }) }).meta({ id: 'Base64File' });

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

export const RequestCodeResponse = z.object({ code: z.string().meta({ examples: ['ABCD-EFGH'] }) }).meta({ id: 'RequestCodeResponse' });

const base64url = z
  .string()
  .max(65536, { abort: true })
  .regex(/^[A-Za-z0-9_-]*={0,2}$/, { message: 'must be base64url' });

/** `POST /api/{session}/auth/passkey`: a WebAuthn assertion, as `navigator.credentials.get().toJSON()` gives it. */
export const PasskeyAssertionRequest = z
  .object({
    id: z.string().min(1).max(1024),
    rawId: base64url,
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: base64url,
      authenticatorData: base64url,
      signature: base64url,
      userHandle: base64url.optional(),
    }),
  })
  .meta({ id: 'PasskeyAssertionRequest' });
export type PasskeyAssertionRequest = z.infer<typeof PasskeyAssertionRequest>;

/** A credential the account accepts, as WebAuthn's `allowCredentials` lists it. */
export const PasskeyAllowedCredential = z
  .object({
    id: z.string().meta({ description: 'Base64url-encoded credential ID' }),
    type: z.literal('public-key'),
    transports: z
      .array(z.string())
      .optional()
      .meta({ examples: [['internal', 'hybrid']] }),
  })
  .meta({ id: 'PasskeyAllowedCredential' });

/**
 * `GET /api/{session}/auth/passkey/challenge`: WebAuthn public-key request options, to pass to
 * `navigator.credentials.get({ publicKey })` on the messaging web client's origin.
 */
export const PasskeyChallenge = z
  .object({
    challenge: z.string().meta({ description: 'Base64url-encoded challenge to sign' }),
    timeout: z.number().meta({ description: 'How long the challenge is valid for, in milliseconds', examples: [60000] }),
    rpId: z.string().meta({ description: 'Relying party ID', examples: ['web.whatsapp.com'] }),
    allowCredentials: z.array(PasskeyAllowedCredential),
    userVerification: z.enum(['required', 'preferred', 'discouraged']),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'PasskeyChallenge' });
export type PasskeyChallenge = z.infer<typeof PasskeyChallenge>;

/** `GET /api/{session}/auth/passkey/confirmation`: the code to compare with the phone's. */
export const PasskeyConfirmationResponse = z
  .object({ code: z.string().meta({ description: 'The code the user compares with the one on the phone', examples: ['1234'] }) })
  .meta({ id: 'PasskeyConfirmationResponse' });
export type PasskeyConfirmationResponse = z.infer<typeof PasskeyConfirmationResponse>;
