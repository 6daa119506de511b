import { BackupArchive, BACKUP_PASSPHRASE_MIN } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { decryptPairings, encryptPairings, PairingsUnreadable } from '../../src/cluster/backup/pairing-cipher.js';
import { secretRefsIn } from '../../src/cluster/backup/secret-refs.js';

const ref = (name: string, key: string) => ({ secretKeyRef: { name, key } });

describe('backup archive: Secret references of a session', () => {
  it('lists every secretKeyRef in the spec once, wherever it is (url, hmac, headers, proxy)', () => {
    const spec = {
      engine: 'NOWEB',
      config: {
        proxy: { server: 'proxy:3128', passwordFrom: ref('proxy', 'password') },
        webhooks: [
          {
            urlFrom: ref('hooks', 'url'),
            hmac: { keyFrom: ref('alpha-webhooks', 'hmac-0') },
            customHeaders: [{ name: 'X', valueFrom: ref('hooks', 'token') }],
          },
          { url: 'https://example.com', hmac: { keyFrom: ref('alpha-webhooks', 'hmac-0') } },
        ],
      },
    };
    expect(secretRefsIn(spec)).toEqual([
      { name: 'proxy', key: 'password' },
      { name: 'hooks', key: 'url' },
      { name: 'alpha-webhooks', key: 'hmac-0' },
      { name: 'hooks', key: 'token' },
    ]);
    expect(secretRefsIn({ engine: 'SANDBOX', config: { webhooks: [{ url: 'https://example.com' }] } })).toEqual([]);
  });
});

describe('backup archive: pairings encrypted with the passphrase', () => {
  const plaintext = Buffer.from(JSON.stringify([{ key: 'nora.Y3JlZHM.=', value: 'eyJub2lzZUtleSI6MX0=' }]));

  it('opens with the passphrase it was sealed with, and holds nothing of the plaintext', async () => {
    const sealed = await encryptPairings(plaintext, 'correct horse battery staple');
    expect(sealed).toMatchObject({ cipher: 'aes-256-gcm', kdf: 'scrypt', N: 2 ** 15, r: 8, p: 1 });
    expect(JSON.stringify(sealed)).not.toContain('nora');
    expect((await decryptPairings(sealed, 'correct horse battery staple')).equals(plaintext)).toBe(true);
    // A fresh salt and iv each time: two archives of the same state share no ciphertext.
    expect((await encryptPairings(plaintext, 'correct horse battery staple')).data).not.toBe(sealed.data);
  });

  it('refuses another passphrase and a changed ciphertext, tag or iv', async () => {
    const sealed = await encryptPairings(plaintext, 'correct horse battery staple');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    await expect(decryptPairings(sealed, 'correct horse battery stapler')).rejects.toBeInstanceOf(PairingsUnreadable);
    for (const field of ['data', 'tag', 'iv'] as const) {
      await expect(decryptPairings({ ...sealed, [field]: flip(sealed[field]) }, 'correct horse battery staple')).rejects.toBeInstanceOf(
        PairingsUnreadable,
      );
    }
  });

  it('the archive schema takes only this format and version, and a passphrase of at least the minimum', () => {
    expect(BACKUP_PASSPHRASE_MIN).toBeGreaterThanOrEqual(12);
    const archive = { format: 'switchboard-backup', version: 1, createdAt: new Date().toISOString(), namespace: 'a', sessions: [], apiKeys: [] };
    const pairings = { cipher: 'aes-256-gcm', kdf: 'scrypt', N: 32768, r: 8, p: 1, salt: '', iv: '', tag: '', data: '' };
    expect(BackupArchive.safeParse({ ...archive, pairings }).success).toBe(true);
    expect(BackupArchive.safeParse({ ...archive, version: 2, pairings }).success).toBe(false);
    expect(BackupArchive.safeParse({ ...archive, pairings: { ...pairings, N: 2 ** 40 } }).success).toBe(false);
  });
});
