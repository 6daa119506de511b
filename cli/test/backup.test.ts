import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPassphrase } from '../src/backup.js';

describe('the backup passphrase', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('from --passphrase-file: one trailing newline is the file’s end, not the passphrase’s; the rest is kept as it is', () => {
    const file = join(dir, 'passphrase');
    writeFileSync(file, ' correct horse battery staple \n');
    expect(readPassphrase(file, {})).toBe(' correct horse battery staple ');
    writeFileSync(file, 'two lines\n\n');
    expect(readPassphrase(file, {})).toBe('two lines\n');
  });

  it('else from SWITCHBOARD_BACKUP_PASSPHRASE, as it is; neither: an error saying where to put one', () => {
    expect(readPassphrase(undefined, { SWITCHBOARD_BACKUP_PASSPHRASE: 'from the environment\n' })).toBe('from the environment\n');
    expect(() => readPassphrase(undefined, {})).toThrow(/SWITCHBOARD_BACKUP_PASSPHRASE or pass --passphrase-file/);
    expect(() => readPassphrase(join(dir, 'missing'), {})).toThrow(/cannot read the passphrase file .*missing/);
  });
});
