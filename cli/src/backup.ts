import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { printable } from './printable.js';
import { call, CliError, type CliOptions } from './commands.js';

/** The passphrase that encrypts the pairings in an archive: from a file, or the environment. */
export function readPassphrase(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (file !== undefined) {
    try {
      // One trailing newline is the file's end, not the passphrase's (echo, an editor, a Secret from a manifest).
      return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new CliError(`cannot read the passphrase file ${file}: ${(error as Error).message}`);
    }
  }
  const value = env.SWITCHBOARD_BACKUP_PASSPHRASE;
  if (!value)
    throw new CliError('a passphrase is needed to encrypt or open the pairings: set SWITCHBOARD_BACKUP_PASSPHRASE or pass --passphrase-file');
  return value;
}

type Options = Pick<CliOptions, 'url' | 'key' | 'out'>;

/**
 * Writes the archive the gateway makes (`POST /api/admin/backup`) to `file`, readable by its
 * owner only, through a temporary file and a rename: a backup that fails half way never leaves a
 * truncated archive where the last good one was. `-` writes it to standard output.
 */
export async function backupCommand(options: Options, file: string, passphrase: string): Promise<number> {
  const archive = await call<{ sessions: unknown[]; apiKeys: unknown[] }>(options, '/api/admin/backup', { passphrase });
  const text = `${JSON.stringify(archive)}\n`;
  if (file === '-') {
    options.out.write(text);
    return 0;
  }
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`);
  }
  process.stderr.write(`backed up ${archive.sessions.length} sessions and ${archive.apiKeys.length} API keys to ${file}\n`);
  return 0;
}

interface RestoreResult {
  sessions: string[];
  apiKeys: number;
  pairingEntries: number;
  missingSecrets: { name: string; key: string }[];
}

/** Sends an archive to `POST /api/admin/restore`; the gateway checks it whole before it writes anything. */
export async function restoreCommand(options: Options, file: string, passphrase: string): Promise<number> {
  let archive: unknown;
  try {
    archive = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read the archive ${file}: ${(error as Error).message}`);
  }
  const result = await call<RestoreResult>(options, '/api/admin/restore', { archive, passphrase });
  options.out.write(`restored ${result.sessions.length} sessions (${result.sessions.map(printable).join(', ')}) and ${result.apiKeys} API keys\n`);
  for (const ref of result.missingSecrets) {
    options.out.write(
      `missing: Secret ${printable(ref.name)} key ${printable(ref.key)}, which a restored webhook reads: create it, or its deliveries fail\n`,
    );
  }
  return 0;
}
