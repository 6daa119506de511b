import { z } from 'zod';
import { ChatId, ContactId } from './ids.js';
import { SimulatedMediaFile } from './media.js';
import { actingMember, eventSimulations } from './sandbox-events.js';

/** The account a simulated pairing pairs as. */
const SimulatedAccount = z.object({ id: ContactId, pushName: z.string().min(1).max(128) });

/**
 * `POST /api/{session}/sandbox/simulate`: plays the other side of a SANDBOX session.
 * A stable contract (docs/sandbox.md); later issues add kinds, never change these.
 */
export const SimulateScan = z.object({
  kind: z.literal('scan'),
  me: SimulatedAccount.optional(),
});

export const SimulateMessage = z
  .object({
    kind: z.literal('message'),
    from: ChatId,
    participant: actingMember(),
    body: z.string().max(65536).optional().meta({ description: 'The text (not empty), or the caption of `media` (may be empty or left out)' }),
    id: z
      .string()
      .regex(/^[0-9A-Za-z]{1,64}$/, { message: 'must be 1-64 letters or digits' })
      .optional(),
    media: SimulatedMediaFile.optional().meta({ description: 'A received file: stored, and downloadable at `media.url`' }),
    pn: ContactId.optional().meta({
      description:
        "The sender's phone-number id, when the sender is a linked id (`from`, or `participant` in a group, is `<id>@lid`): " +
        'the record carries it in `_data.key` (`remoteJidAlt` or `participantAlt`), and the session’s LID map learns it',
    }),
  })
  .refine((message) => message.pn === undefined || (message.from.endsWith('@g.us') ? message.participant : message.from)?.endsWith('@lid'), {
    path: ['pn'],
    message: 'only for a sender that is a linked id: `from` (or `participant` in a group) "<id>@lid"',
  })
  // A caption may be empty, as "body": "" or left out; a text message without media has text.
  .refine((message) => message.media !== undefined || (message.body ?? '') !== '', {
    path: ['body'],
    message: 'required and not empty unless media is given',
  });

/** A public key as a JWK (RFC 7517), e.g. node's `key.export({ format: 'jwk' })` or WebCrypto's `exportKey('jwk', key)`. */
const PublicKeyJwk = z.looseObject({
  kty: z.enum(['EC', 'OKP', 'RSA']),
  d: z.never({ error: 'must be a public key: leave out "d"' }).optional(),
});

/**
 * The phone asks for a passkey: SCAN_QR_CODE becomes PASSKEY_REQUIRED. With `credential`, only
 * that credential is allowed and its signature is checked; `confirmation` adds the code step.
 */
export const SimulatePasskey = z.object({
  kind: z.literal('passkey'),
  credential: z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_-]{1,1024}$/, { message: 'must be the base64url credential id (no padding)' }),
      publicKey: PublicKeyJwk,
    })
    .optional(),
  confirmation: z.boolean().default(false),
  me: SimulatedAccount.optional(),
});

export const SimulateRequest = z
  .discriminatedUnion('kind', [SimulateScan, SimulateMessage, SimulatePasskey, ...eventSimulations])
  .meta({ id: 'SimulateRequest' });
export type SimulateRequest = z.infer<typeof SimulateRequest>;

export const DEFAULT_SANDBOX_ME = { id: '15550000000@c.us', pushName: 'Sandbox' } as const;
