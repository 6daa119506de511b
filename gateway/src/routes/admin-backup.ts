import { BackupArchive, BackupRequest, ErrorBody, RestoreRequest, RestoreResult } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ONLY } from '../auth/access.js';
import type { ClusterBackup } from '../cluster/backup/cluster-backup.js';
import { typed } from './context.js';
import { commonErrors } from './responses.js';

const tags = ['Admin'];

/** An archive holds every session's pairing: far larger than a request of the rest of the API. */
const ARCHIVE_BODY_LIMIT = 256 * 1024 * 1024;

/**
 * Cluster mode: the backup and restore behind `switchboard backup` / `restore` (docs/operations.md,
 * "Backup and restore"). Admin key only: an archive is the whole install, pairings included.
 * POST for the backup too: the passphrase is in the body, never in a URL that proxies log.
 */
export async function adminBackupRoutes(app: FastifyInstance, { backup }: { backup: ClusterBackup }): Promise<void> {
  const r = typed(app);

  r.post('/api/admin/backup', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'Export what brings this install back without a new QR scan: sessions, pairings (encrypted), API keys (hashed), Secret references',
      description:
        'The answer is the archive (format `switchboard-backup`, version 1). Pairings are encrypted with the passphrase (scrypt, AES-256-GCM); ' +
        'webhook secrets are listed as Secret names and keys, never their values. 409 when a session keeps a webhook secret in plain text in its resource. Our addition.',
      body: BackupRequest,
      response: { 200: BackupArchive, ...commonErrors, 409: ErrorBody },
    },
    handler: async (request) => backup.backup(request.body.passphrase),
  });

  r.post('/api/admin/restore', {
    config: ADMIN_ONLY,
    bodyLimit: ARCHIVE_BODY_LIMIT,
    schema: {
      tags,
      summary: 'Import an archive of POST /api/admin/backup into this namespace and NATS',
      description:
        'Everything is checked before anything is written: a malformed archive is a 400 naming the field, a passphrase that does not open the pairings a 422, ' +
        'a session, pairing or key that is already here a 409; none of them changes anything. `missingSecrets` lists the Secret keys the restored webhooks read ' +
        'that are not in this namespace. Our addition.',
      body: RestoreRequest,
      response: { 200: RestoreResult, ...commonErrors, 409: ErrorBody, 422: ErrorBody },
    },
    handler: async (request) => backup.restore(request.body.archive, request.body.passphrase),
  });
}
