#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { backupCommand, readPassphrase, restoreCommand } from './backup.js';
import { readFileSync } from 'node:fs';
import { isCliError, qrCommand, statusCommand } from './commands.js';
import { rolloutStatus } from './rollout.js';

const USAGE = `Usage:
  switchboard qr <session> [--light]   print the session's QR code, again as it is renewed, until it is WORKING
  switchboard status                   every session: engine, status, account
  switchboard backup <file>            write an archive of the install (cluster mode; admin key): sessions,
                                       pairings (encrypted), API keys (hashed), Secret references
  switchboard restore <file>           bring an archive back into this install (nothing is written if any part is refused)
  switchboard rollout status           each engine's version rollout, from the ConfigMap list on stdin
                                       (kubectl get cm -l app.kubernetes.io/component=rollout -o json); exit 1 when one is halted

Options:
  --url <url>   the gateway (default: SWITCHBOARD_URL, else http://localhost:3000)
  --key <key>   an API key (default: SWITCHBOARD_API_KEY); a control key of the session is enough for qr
  --light       for a terminal with a light background
  --passphrase-file <file>   encrypts (backup) or opens (restore) the pairings; default: SWITCHBOARD_BACKUP_PASSPHRASE
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      light: { type: 'boolean' },
      'passphrase-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, argument, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  // Read from the cluster, not through the gateway: no key needed.
  if (command === 'rollout' && argument === 'status' && rest.length === 0) return rolloutStatus(readFileSync(0, 'utf8'), process.stdout);
  const key = values.key ?? process.env.SWITCHBOARD_API_KEY;
  if (!key) {
    process.stderr.write('an API key is needed: set SWITCHBOARD_API_KEY or pass --key\n');
    return 2;
  }
  const options = {
    url: values.url ?? process.env.SWITCHBOARD_URL ?? 'http://localhost:3000',
    key,
    out: process.stdout,
    light: values.light === true,
  };
  if (command === 'status' && argument === undefined) return statusCommand(options);
  if (command === 'qr' && argument !== undefined && rest.length === 0) {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    return qrCommand(options, argument, stop.signal);
  }
  if ((command === 'backup' || command === 'restore') && argument !== undefined && rest.length === 0) {
    const passphrase = readPassphrase(values['passphrase-file']);
    return command === 'backup' ? backupCommand(options, argument, passphrase) : restoreCommand(options, argument, passphrase);
  }
  process.stderr.write(USAGE);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${isCliError(error) ? error.message : String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  },
);
