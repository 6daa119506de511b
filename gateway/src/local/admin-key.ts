import { configuredKeyHash, generateApiKey, hashApiKey } from '../auth/api-key.js';
import type { KeyStore } from './sqlite-key-store.js';

export interface AdminKey {
  readonly hash: string;
  /** Set only on the start that generated the key: the one time it is shown. */
  readonly generated?: string;
}

/**
 * The admin key: from SWITCHBOARD_API_KEY when set; else the one generated on an earlier start
 * (only its hash was kept); else a new one, whose hash is stored and which is shown once.
 */
export function resolveAdminKey(configured: string | undefined, store: KeyStore): AdminKey {
  if (configured) return { hash: configuredKeyHash(configured) };
  const stored = store.storedAdminHash();
  if (stored) return { hash: stored };
  const generated = generateApiKey();
  const hash = hashApiKey(generated);
  store.saveAdminHash(hash);
  return { hash, generated };
}
