import { API_VERSION, isConflict, latestValues, type MessagingSession, openAuthBucket, sessionNameOf } from '@switchboard/kube';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupArchive,
  BackupPairingEntries,
  type BackupSession,
  MESSAGING_SESSION,
  type RestoreResult,
  type SecretKeySelector,
} from '@switchboard/protocol';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { isScoped } from '../../auth/key-store.js';
import { ApiError } from '../../http/errors.js';
import type { KvKeyStore } from '../kv-key-store.js';
import type { SessionCache } from '../session-cache.js';
import type { SessionResources } from '../session-resources.js';
import type { SessionSecrets } from '../session-secrets.js';
import { hasPlainSecrets } from '../webhook-secrets.js';
import { decryptPairings, encryptPairings, PairingsUnreadable } from './pairing-cipher.js';
import { secretRefsIn } from './secret-refs.js';

/** An `sb_auth` key is `<session>.<type>.<id>` (engine-pod's NatsAuthStateStore). */
const sessionOfKey = (key: string): string => key.split('.')[0]!;

export interface ClusterBackupOptions {
  readonly nc: NatsConnection;
  readonly namespace: string;
  readonly resources: SessionResources;
  readonly cache: SessionCache;
  readonly keys: KvKeyStore;
  readonly secrets: SessionSecrets;
  readonly log: Logger;
}

/**
 * What a cluster install needs to come back without a phone scanning again
 * (docs/operations.md, "Backup and restore"): the sessions' resources, the engines' auth state
 * (the `sb_auth` bucket, encrypted in the archive), the API keys made through /api/keys (hashes)
 * and the Secret keys webhooks read (names only). Taken through the gateway, which already holds
 * the NATS user and the Kubernetes rights for each of them, so the CLI needs only the admin key.
 */
export class ClusterBackup {
  constructor(private readonly options: ClusterBackupOptions) {}

  async backup(passphrase: string): Promise<BackupArchive> {
    const resources = (await this.options.resources.list()).items;
    const plain = resources.filter((resource) => hasPlainSecrets(resource.spec.config)).map(sessionNameOf);
    if (plain.length > 0) {
      // The archive carries references to secrets, never their values.
      throw new ApiError(
        409,
        `sessions ${plain.join(', ')} keep webhook secrets in plain text in their MessagingSession; move them into Secrets (keyFrom / valueFrom / urlFrom / passwordFrom.secretKeyRef, or update the config through the API) before a backup`,
        { sessions: plain },
      );
    }
    const sessions: BackupSession[] = resources.map((resource) => ({
      name: sessionNameOf(resource),
      resourceName: resource.metadata.name,
      spec: resource.spec,
      secretRefs: secretRefsIn(resource.spec),
    }));
    const kv = await openAuthBucket(this.options.nc);
    const names = new Set(sessions.map((session) => session.name));
    // Auth state of a session whose resource is gone (deleted with kubectl, which keeps the
    // pairing) has nothing to run it after a restore, which refuses pairings without a session.
    const entries = (await latestValues(kv, '>', 'backup of the auth state')).filter((entry) => names.has(sessionOfKey(entry.key)));
    const pairings: BackupPairingEntries = entries.map((entry) => ({ key: entry.key, value: Buffer.from(entry.value).toString('base64') }));
    return {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      namespace: this.options.namespace,
      sessions,
      apiKeys: this.options.keys.ring.all(),
      pairings: await encryptPairings(Buffer.from(JSON.stringify(pairings)), passphrase),
    };
  }

  /**
   * Checks everything before it writes anything: a passphrase that does not open the pairings, a
   * pairing of a session not in the archive, or a session or key that is already here is a 4xx and
   * changes nothing. Then the pairings go in first, so each engine pod finds its account's
   * credentials when it starts; then the resources; then the keys, bound to the new resources.
   */
  async restore(archive: BackupArchive, passphrase: string): Promise<RestoreResult> {
    const pairings = await this.openPairings(archive, passphrase);
    await this.refuseConflicts(archive, pairings);

    const kv = await openAuthBucket(this.options.nc);
    for (const entry of pairings) await kv.put(entry.key, Buffer.from(entry.value, 'base64'));

    const uids = new Map<string, string>();
    for (const session of archive.sessions) {
      const created = await this.create(session);
      if (created.metadata?.uid) uids.set(session.name, created.metadata.uid);
    }
    // A key limited to a session was bound to the resource it was made for; the restored
    // resource is a new one (another uid) standing for the same account.
    for (const key of archive.apiKeys) {
      const uid = key.session === null ? undefined : uids.get(key.session);
      await this.options.keys.add(key.incarnation !== undefined && uid ? { ...key, incarnation: uid } : key);
    }

    const missingSecrets = await this.missingSecrets(archive.sessions.flatMap((session) => session.secretRefs));
    this.options.log.info(
      { sessions: archive.sessions.length, apiKeys: archive.apiKeys.length, pairingEntries: pairings.length },
      'restored a backup',
    );
    return { sessions: archive.sessions.map((s) => s.name), apiKeys: archive.apiKeys.length, pairingEntries: pairings.length, missingSecrets };
  }

  private async openPairings(archive: BackupArchive, passphrase: string): Promise<BackupPairingEntries> {
    let plaintext: Buffer;
    try {
      plaintext = await decryptPairings(archive.pairings, passphrase);
    } catch (error) {
      if (error instanceof PairingsUnreadable) throw new ApiError(422, error.message, { field: 'passphrase' });
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(plaintext.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const entries = BackupPairingEntries.safeParse(parsed);
    if (!entries.success) throw new ApiError(422, 'archive.pairings does not hold a list of auth state entries', { field: 'archive.pairings' });
    const names = new Set(archive.sessions.map((session) => session.name));
    const strays = [...new Set(entries.data.map((entry) => sessionOfKey(entry.key)).filter((session) => !names.has(session)))];
    if (strays.length > 0) {
      throw new ApiError(422, `archive.pairings holds auth state of sessions not in archive.sessions: ${strays.join(', ')}`, {
        field: 'archive.pairings',
        sessions: strays,
      });
    }
    return entries.data;
  }

  private async refuseConflicts(archive: BackupArchive, pairings: BackupPairingEntries): Promise<void> {
    const twiceIn = (names: string[]) => names.filter((name, i) => names.indexOf(name) !== i);
    const twice = [...twiceIn(archive.sessions.map((session) => session.name)), ...twiceIn(archive.sessions.map((session) => session.resourceName))];
    if (twice.length > 0) {
      throw new ApiError(422, `archive.sessions names a session twice: ${[...new Set(twice)].join(', ')}`, { field: 'archive.sessions' });
    }

    const existing = new Set((await this.options.resources.list()).items.flatMap((r) => [r.metadata.name, sessionNameOf(r)]));
    const taken = archive.sessions.filter((s) => existing.has(s.name) || existing.has(s.resourceName)).map((s) => s.name);
    if (taken.length > 0) {
      throw new ApiError(409, `sessions already here: ${taken.join(', ')}; restore into a namespace without them (or delete them first)`, {
        sessions: taken,
      });
    }
    const kv = await openAuthBucket(this.options.nc);
    const paired = new Set<string>();
    for (const session of new Set(pairings.map((entry) => sessionOfKey(entry.key)))) {
      if ((await latestValues(kv, `${session}.>`, 'restore check of the auth state')).length > 0) paired.add(session);
    }
    if (paired.size > 0) {
      throw new ApiError(409, `auth state already here for sessions ${[...paired].join(', ')}; a restore does not overwrite a pairing`, {
        sessions: [...paired],
      });
    }
    const ring = this.options.keys.ring;
    const keyTaken = archive.apiKeys
      .filter((key) => ring.get(key.id) !== undefined || (isScoped(key) && ring.scoped(key.kind, key.session) !== undefined))
      .map((key) => key.id);
    if (keyTaken.length > 0) throw new ApiError(409, `API keys already here: ${keyTaken.join(', ')}`, { apiKeys: keyTaken });
  }

  private async create(session: BackupSession): Promise<MessagingSession> {
    const resource: MessagingSession = {
      apiVersion: API_VERSION,
      kind: MESSAGING_SESSION.kind,
      metadata: { name: session.resourceName },
      spec: session.spec,
    };
    try {
      const created = await this.options.resources.create(resource);
      this.options.cache.remember(created);
      return created;
    } catch (error) {
      if (isConflict(error))
        throw new ApiError(409, `session '${session.name}' was created meanwhile; the restore stopped there`, { session: session.name });
      throw error;
    }
  }

  private async missingSecrets(refs: readonly SecretKeySelector[]): Promise<SecretKeySelector[]> {
    const missing: SecretKeySelector[] = [];
    const seen = new Set<string>();
    for (const ref of refs) {
      const id = `${ref.name}/${ref.key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      await this.options.secrets.value(ref).catch(() => missing.push(ref));
    }
    return missing;
  }
}
