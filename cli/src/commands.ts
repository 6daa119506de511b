import QRCode from 'qrcode';
import { printable } from './printable.js';

export interface CliOptions {
  /** The gateway, e.g. http://localhost:3000. */
  readonly url: string;
  readonly key: string;
  /** Where the output goes; a TTY gets each new QR in place of the last one. */
  readonly out: NodeJS.WriteStream | NodeJS.WritableStream;
  /** How often the session is asked for its status and QR, in ms. */
  readonly pollMs?: number;
  /** Dark QR modules as blocks, for a terminal with a light background. */
  readonly light?: boolean;
}

interface Session {
  name: string;
  engine: string;
  status: string;
  me: { id: string; pushName: string } | null;
  reason?: string;
}

export class CliError extends Error {}

/** The paired account as printed: its name is the account owner's to choose, escape sequences included. */
const account = (me: NonNullable<Session['me']>) => `${printable(me.pushName)} (${printable(me.id)})`;

/** A GET, or a POST of `body` as JSON. */
export async function call<T>(options: Pick<CliOptions, 'url' | 'key'>, path: string, body?: unknown): Promise<T> {
  let response: Response;
  const headers = { 'x-api-key': options.key, accept: 'application/json' };
  try {
    response = await fetch(
      new URL(path, options.url),
      body === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
  } catch (error) {
    throw new CliError(`cannot reach the gateway at ${options.url}: ${(error as Error).message} (set SWITCHBOARD_URL or --url)`);
  }
  const answer = (await response.json().catch(() => null)) as { message?: string } | null;
  if (!response.ok) throw new CliError(`${response.status} from ${path}: ${printable(answer?.message ?? response.statusText)}`);
  return answer as T;
}

/**
 * The QR as text: two modules a line with half blocks. By default the light modules are the
 * blocks, which a terminal draws light on its dark background, so the code reads as printed on
 * paper; `light` draws the dark modules instead, for light backgrounds.
 */
export async function renderQr(value: string, light = false): Promise<string> {
  return QRCode.toString(value, {
    type: 'utf8',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: light ? { dark: '#000000', light: '#ffffff' } : { dark: '#ffffff', light: '#000000' },
  });
}

/**
 * `switchboard qr <session>`: prints the session's QR, again each time it is renewed, until the
 * session is WORKING (exit 0). FAILED, STOPPED or an error end it with a message (exit 1).
 */
export async function qrCommand(options: CliOptions, session: string, signal?: AbortSignal): Promise<number> {
  const tty = 'isTTY' in options.out && options.out.isTTY === true;
  const path = `/api/sessions/${encodeURIComponent(session)}`;
  let shown: string | null = null;
  let said = '';
  const say = (line: string) => {
    if (line === said) return;
    said = line;
    options.out.write(`${line}\n`);
  };
  while (!signal?.aborted) {
    const { status, me, reason } = await call<Session>(options, path);
    switch (status) {
      case 'WORKING':
        say(`${session} is WORKING${me ? `: paired as ${account(me)}` : ''}`);
        return 0;
      case 'FAILED':
        say(`${session} FAILED${reason ? `: ${printable(reason)}` : ''}`);
        return 1;
      case 'STOPPED':
        say(`${session} is STOPPED: start it first (POST ${path}/start)`);
        return 1;
      case 'SCAN_QR_CODE': {
        const { value } = await call<{ value: string }>(options, `/api/${encodeURIComponent(session)}/auth/qr?format=raw`).catch(() => ({
          value: shown ?? '',
        }));
        if (value !== '' && value !== shown) {
          shown = value;
          const text = await renderQr(value, options.light);
          // On a terminal the new code takes the old one's place; in a file or pipe each follows the last.
          options.out.write(
            `${tty ? '\x1b[2J\x1b[H' : '\n'}Scan with the phone (Linked devices) to pair ${session}; renewed ${new Date().toLocaleTimeString()}:\n${text}\n`,
          );
          said = '';
        }
        break;
      }
      default:
        say(`${session} is ${printable(status)}: waiting`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
  return 130;
}

/** `switchboard status`: every session with its engine, status and account. */
export async function statusCommand(options: CliOptions): Promise<number> {
  const sessions = await call<Session[]>(options, '/api/sessions?all=true');
  options.out.write(
    table([
      ['SESSION', 'ENGINE', 'STATUS', 'ACCOUNT'],
      ...sessions.map((s) => [printable(s.name), printable(s.engine), printable(s.status), s.me ? account(s.me) : '-']),
    ]),
  );
  return 0;
}

/** Rows as columns padded to their widest cell, two spaces apart. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

export function isCliError(error: unknown): error is Error {
  return error instanceof CliError;
}
