import { z } from 'zod';
import { MessagingSessionSpec, RESOURCE_NAME_MAX } from './cluster.js';
import { SessionName } from './ids.js';
import { StoredApiKey } from './keys.js';
import { SecretKeySelector } from './resource-webhook.js';

/**
 * The backup archive of a cluster install (docs/operations.md, "Backup and restore"): one JSON
 * file, `format` and `version` first so a reader knows what it holds before anything else.
 * Sessions and keys are in the clear (keys are hashes); the pairings, which are the accounts'
 * credentials, are encrypted with a passphrase only the user holds.
 */
export const BACKUP_FORMAT = 'switchboard-backup';
export const BACKUP_VERSION = 1;

/** The shortest passphrase a backup accepts: it alone guards every account's credentials in the file. */
export const BACKUP_PASSPHRASE_MIN = 12;

export const BackupPassphrase = z
  .string()
  .min(BACKUP_PASSPHRASE_MIN, { message: `must be at least ${BACKUP_PASSPHRASE_MIN} characters: it alone guards the pairings in the archive` })
  .max(1024)
  .meta({ description: 'Encrypts the pairings in the archive (scrypt, then AES-256-GCM); needed again to restore' });

export const BackupSession = z
  .object({
    name: SessionName,
    resourceName: z.string().min(1).max(RESOURCE_NAME_MAX),
    spec: MessagingSessionSpec,
    /** The Secret keys the session's webhooks read: references only, never their values. */
    secretRefs: z.array(SecretKeySelector).max(100),
  })
  .meta({ id: 'BackupSession' });
export type BackupSession = z.infer<typeof BackupSession>;

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, { message: 'must be base64' });

/** The pairings, encrypted: the plaintext is the JSON of `BackupPairingEntries`. */
export const EncryptedPairings = z
  .object({
    cipher: z.literal('aes-256-gcm'),
    kdf: z.literal('scrypt'),
    /** scrypt's cost parameters, kept so a later version may raise them and still read this one. */
    N: z.number().int().min(1024).max(1_048_576),
    r: z.number().int().min(1).max(32),
    p: z.number().int().min(1).max(16),
    salt: Base64,
    iv: Base64,
    tag: Base64,
    data: Base64,
  })
  .meta({ id: 'EncryptedPairings' });
export type EncryptedPairings = z.infer<typeof EncryptedPairings>;

/** One entry of the engines' auth state bucket: its key and its value in base64. */
export const BackupPairingEntries = z.array(
  z.object({
    key: z
      .string()
      .min(1)
      .max(1024, { abort: true })
      .regex(/^[-/_=.a-zA-Z0-9]+$/),
    value: Base64,
  }),
);
export type BackupPairingEntries = z.infer<typeof BackupPairingEntries>;

export const BackupArchive = z
  .object({
    format: z.literal(BACKUP_FORMAT),
    version: z.literal(BACKUP_VERSION),
    createdAt: z.iso.datetime({ offset: true }),
    /** The namespace it was taken from: for the reader; a restore goes to the gateway's own. */
    namespace: z.string().max(63),
    sessions: z.array(BackupSession).max(10_000),
    /** Keys made through /api/keys, as stored (hashes). The configured admin key is not among them. */
    apiKeys: z.array(StoredApiKey).max(100_000),
    pairings: EncryptedPairings,
  })
  .meta({ id: 'BackupArchive' });
export type BackupArchive = z.infer<typeof BackupArchive>;

export const BackupRequest = z.object({ passphrase: BackupPassphrase }).meta({ id: 'BackupRequest' });
export type BackupRequest = z.infer<typeof BackupRequest>;

export const RestoreRequest = z.object({ archive: BackupArchive, passphrase: BackupPassphrase }).meta({ id: 'RestoreRequest' });
export type RestoreRequest = z.infer<typeof RestoreRequest>;

export const RestoreResult = z
  .object({
    sessions: z.array(SessionName),
    apiKeys: z.number().int(),
    pairingEntries: z.number().int(),
    /** Secret keys the restored webhooks read that are not in this namespace: make them, or those deliveries fail. */
    missingSecrets: z.array(SecretKeySelector),
  })
  .meta({ id: 'RestoreResult' });
export type RestoreResult = z.infer<typeof RestoreResult>;
