/**
 * A stand-in for `switchboard-gows stdio` in the proxy's tests: a real process speaking the engine
 * RPC (engines/gows/PROTOCOL.md) over its stdin and stdout, with only node: built-ins (node runs it
 * with its type stripping). Flags: `--methods=a,b` (what `capabilities` lists), `--ignore-eof`
 * (stays after stdin closes, so the host must kill it), `--qr-fails` (announces SCAN_QR_CODE, gives no QR).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const flags = process.argv.slice(2);
const methodsFlag = flags.find((flag) => flag.startsWith('--methods='));
const methods = methodsFlag ? methodsFlag.slice('--methods='.length).split(',').filter(Boolean) : ['sendMedia', 'react', 'rejectCall'];
const ignoreEof = flags.includes('--ignore-eof');
const qrFails = flags.includes('--qr-fails');

type Params = Record<string, unknown>;
const pending = new Map<number, (message: Params) => void>();
let nextId = 1;
let qrCount = 0;
let session = '';

/** A string param, or the fallback when it is none. */
function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function send(message: Params): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}
function notify(method: string, params: Params): void {
  send({ method, params });
}
function request(method: string, params: Params): Promise<Params> {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}
function log(level: string, msg: string, fields: Params = {}): void {
  process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
}
class RpcError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

function record(chatId: string, body: string, media: unknown = null): Params {
  return {
    id: `true_${chatId}_STUB${nextId++}`,
    timestamp: 1_700_000_000,
    from: '15550000000@c.us',
    fromMe: true,
    source: 'api',
    to: chatId,
    participant: null,
    body,
    hasMedia: media !== null,
    media,
    ack: 1,
    ackName: 'SERVER',
    vCards: [],
    _data: {},
  };
}

async function paired(): Promise<void> {
  notify('me', { me: { id: '15550000000@c.us', pushName: 'Stub' } });
  notify('status', { status: 'WORKING' });
}

const handlers: Record<string, (params: Params) => unknown> = {
  capabilities: () => ({ methods }),
  start: async (params) => {
    session = text(params.session);
    log('info', 'stub starting', { settings: params.settings });
    notify('status', { status: 'STARTING' });
    notify('versions', { library: { name: 'stub', version: '0.0.0' }, client: '2.3000.1' });
    const saved = await request('auth.get', { type: 'creds', ids: ['me'] });
    if (saved.result && (saved.result as Params).me) {
      await paired();
    } else {
      notify('status', { status: 'SCAN_QR_CODE' });
    }
    return null;
  },
  qr: () => {
    if (qrFails) throw new RpcError('no QR code: the session is not waiting for a scan', 'WRONG_STATUS');
    return `stub-qr-${session}-${++qrCount}`;
  },
  rotateQr: () => {
    notify('status', { status: 'SCAN_QR_CODE' });
    return null;
  },
  requestCode: async (params) => {
    if (params.phoneNumber === '0') throw new RpcError('phoneNumber: not a number', 'INVALID');
    if (params.phoneNumber === '1') throw new RpcError('not now', 'WRONG_STATUS');
    if (params.phoneNumber === '2') throw new RpcError('no such number', 'INVALID');
    if (params.phoneNumber === '3') throw new RpcError('what', 'NO_SUCH_CODE');
    await request('auth.set', { data: { creds: { me: { jid: `${text(params.phoneNumber)}@s.whatsapp.net`, key: 'AAEC' } } } });
    setImmediate(() => void paired());
    return { code: 'ABCD-EFGH' };
  },
  sendText: (params) => {
    if (params.text === 'crash') process.exit(3);
    if (params.text === 'off-contract') return { id: 1 };
    // A line that never ends: the host must stop reading it at its bound.
    if (params.text === 'endless-line') {
      const chunk = 'x'.repeat(64 * 1024);
      setInterval(() => process.stdout.write(chunk), 1);
      return new Promise(() => {});
    }
    const message = record(text(params.chatId), text(params.text));
    notify('event', { event: 'message.any', payload: message });
    return message;
  },
  // As the engine does: the file goes to the spool the host named, and media.save names it (a
  // caption 'elsewhere' names a file outside the spool instead, which the host must refuse).
  sendMedia: async (params) => {
    const file = params.file as Params;
    const spool = process.env.SWITCHBOARD_GOWS_MEDIA_SPOOL ?? '';
    const path = params.caption === 'elsewhere' ? join(tmpdir(), `stub-${nextId++}`) : join(spool, `sent-${nextId++}`);
    writeFileSync(path, Buffer.from(text(file.data), 'base64'));
    const saved = await request('media.save', { mimetype: file.mimetype, filename: file.filename, path });
    rmSync(path, { force: true });
    if (saved.error) log('warn', 'the host could not keep a media file', { err: (saved.error as Params).message });
    return record(text(params.chatId), text(params.caption), saved.result ?? null);
  },
  react: (params) => ({
    id: `true_${text(params.chatId, 'x@c.us')}_REACTION`,
    from: '15550000000@c.us',
    fromMe: true,
    participant: null,
    to: text(params.chatId, 'x@c.us'),
    timestamp: 1_700_000_000,
    source: 'api',
    reaction: { text: text(params.reaction), messageId: text(params.messageId) },
  }),
  stop: () => {
    notify('status', { status: 'STOPPED' });
    return null;
  },
  logout: async () => {
    await request('auth.clear', {});
    return null;
  },
};

async function handle(message: Params): Promise<void> {
  if (message.method === undefined) {
    pending.get(message.id as number)?.(message);
    pending.delete(message.id as number);
    return;
  }
  const handler = handlers[text(message.method)];
  if (message.id === undefined) return;
  if (!handler) return send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  try {
    send({ id: message.id, result: (await handler((message.params ?? {}) as Params)) ?? null });
  } catch (error) {
    const code = error instanceof RpcError ? error.code : 'ENGINE_ERROR';
    send({ id: message.id, error: { code: -32000, message: (error as Error).message, data: { code } } });
  }
}

createInterface({ input: process.stdin })
  .on('line', (line) => void handle(JSON.parse(line) as Params))
  .on('close', () => {
    log('info', 'stdin closed');
    if (!ignoreEof) process.exit(0);
    setInterval(() => {}, 1_000);
  });
