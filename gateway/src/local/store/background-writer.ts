import type { SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { SqlWrite, SqlWrites } from './sql-writes.js';

/** WAL pages (4 KiB) the history file's writer lets accumulate before it checkpoints. */
const HISTORY_CHECKPOINT_PAGES = 10_000;

/**
 * The worker's whole code, evaluated, so there is no file to find from both `src` (tests) and
 * `dist`. It takes its modules from `process.getBuiltinModule`: the code may run as a script or,
 * when the process was started with `--input-type=module`, as a module. A message is one batch:
 * statements to define, then the writes as one text (`encodeWrite`), run in one transaction;
 * then, optionally, one statement whose changed rows are answered. Answers come back in the order
 * of the batches. Its connection checkpoints the file itself (SQLite's default), off the event loop.
 */
const WORKER_CODE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
// Checkpoints every ~40 MB of WAL instead of SQLite's 4 MB: a message's random id puts each insert
// on a random page of the key index, and a page changed many times between two checkpoints is
// copied into the file once. Measured: about a fifth less written per send (docs/architecture.md).
db.exec('PRAGMA wal_autocheckpoint = ${HISTORY_CHECKPOINT_PAGES};');
const statements = [];
const text = (error) => String(error && error.message ? error.message : error);
// The parameters of one write, from where it starts in the batch's text; answers where the next starts.
function decode(text, pos, params) {
  for (let k = 0; k < params.length; k++) {
    const tag = text.charCodeAt(pos++);
    if (tag === 110) params[k] = null;
    else if (tag === 115) {
      const colon = text.indexOf(':', pos);
      const end = colon + 1 + Number(text.slice(pos, colon));
      params[k] = text.slice(colon + 1, end);
      pos = end;
    } else {
      const end = text.indexOf(';', pos);
      params[k] = tag === 98 ? BigInt(text.slice(pos, end)) : Number(text.slice(pos, end));
      pos = end + 1;
    }
  }
  return pos;
}
parentPort.on('message', (batch) => {
  if (batch.close) {
    db.close();
    parentPort.close();
    return;
  }
  const answer = { seq: batch.seq };
  for (const [id, sql] of batch.define) {
    try {
      statements[id] = db.prepare(sql);
    } catch (error) {
      // Fails each batch that uses it, with the reason.
      const reason = text(error);
      statements[id] = { run() { throw new Error(reason); } };
    }
  }
  const ops = batch.ops;
  if (ops.length > 0) {
    try {
      db.exec('BEGIN');
      for (let pos = 0; pos < ops.length; ) {
        let space = ops.indexOf(' ', pos);
        const statement = statements[Number(ops.slice(pos, space))];
        pos = space + 1;
        space = ops.indexOf(' ', pos);
        const params = new Array(Number(ops.slice(pos, space)));
        pos = decode(ops, space + 1, params);
        statement.run(...params);
      }
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      answer.failed = { message: text(error), writes: batch.writes };
    }
  }
  if (batch.changes) {
    try {
      answer.changes = Number(statements[batch.changes.id].run(...batch.changes.params).changes);
    } catch (error) {
      answer.changesError = text(error);
    }
  }
  parentPort.postMessage(answer);
});
`;

/**
 * One write as text: `<statement id> <count> ` then each parameter, `n` (null), `d<number>;`,
 * `b<bigint>;` or `s<length>:<string>`. A batch's writes travel as one string: copying one string
 * to the thread costs a fraction of cloning the values one by one (most of a write's price on the
 * event loop, measured), and a length prefix needs no escaping.
 */
function encodeWrite(id: number, params: readonly SQLInputValue[]): string {
  let text = `${id} ${params.length} `;
  for (const param of params) {
    if (param === null) text += 'n';
    else if (typeof param === 'string') text += `s${param.length}:${param}`;
    else if (typeof param === 'number') text += `d${param};`;
    else if (typeof param === 'bigint') text += `b${param};`;
    else throw new TypeError('the writer thread takes strings, numbers, bigints and null');
  }
  return text;
}

interface Batch {
  readonly seq: number;
  readonly define: [number, string][];
  readonly ops: string;
  readonly writes: number;
  readonly changes?: { id: number; params: readonly SQLInputValue[] };
}

interface Answer {
  readonly seq: number;
  readonly failed?: { message: string; writes: number };
  readonly changes?: number;
  readonly changesError?: string;
}

export interface BackgroundWriterOptions {
  /** The SQLite file; its schema is made before (the store's own connection reads it). */
  readonly file: string;
  /** How long writes wait for others to share their commit. */
  readonly delayMs: number;
  /** A batch that was not committed: none of its writes is in the file. */
  readonly onError: (message: string, writes: number) => void;
}

/**
 * Group commit in a worker thread, for writes that may wait a few milliseconds and that only
 * this writer makes to its file (the event log and the message history). The event loop queues
 * a write (a statement id and its parameters); every `delayMs` the queue goes to the worker,
 * which runs it in one transaction on a connection of its own. The inserts, the commit, its WAL
 * append and the checkpoints are then off the event loop, which answers the API calls. Its
 * own file means no lock is ever shared with the event loop's writes (the webhook outbox must
 * commit before its API call answers).
 *
 * What a crash may lose is what the queue and the worker held: the last `delayMs` or so, as with
 * an in-process group commit (`WriteBatch` with a delay).
 */
export class BackgroundWriter implements SqlWrites {
  private readonly worker: Worker;
  private readonly ids = new Map<string, number>();
  private define: [number, string][] = [];
  /** Joined once per batch: cheaper than growing one string write by write. */
  private ops: string[] = [];
  private writes = 0;
  private timer: NodeJS.Timeout | null = null;
  private seq = 0;
  /** Batches sent and not answered yet: how many writes each holds, and who waits for it. */
  private readonly waiting = new Map<number, { readonly writes: number; wake: (answer: Answer | null) => void }>();
  private stopped = false;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(private readonly options: BackgroundWriterOptions) {
    this.worker = new Worker(WORKER_CODE, { eval: true, workerData: { file: options.file } });
    this.worker.on('message', (answer: Answer) => this.answered(answer));
    this.worker.on('error', (error: Error) => {
      // The batches it had not answered are lost; what is queued is reported when it is sent.
      const lost = [...this.waiting.values()].reduce((sum, batch) => sum + batch.writes, 0);
      options.onError(`the writer thread failed: ${error.message}`, lost);
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        // Nothing more will answer: whatever waits is told it is over.
        for (const batch of this.waiting.values()) batch.wake(null);
        this.waiting.clear();
        this.stopped = true;
        resolve();
      }),
    );
    this.worker.unref();
  }

  statement(sql: string): SqlWrite {
    const id = this.idOf(sql);
    return {
      add: (...params) => {
        // A parameter it cannot carry fails this call alone, before anything is queued.
        const write = encodeWrite(id, params);
        // send() never rejects (a lost batch is reported through onError): the timer has nothing to wait for.
        if (this.writes === 0 && !this.timer) this.timer = setTimeout(() => void this.send(), this.options.delayMs).unref();
        this.ops.push(write);
        this.writes++;
      },
    };
  }

  flush(): Promise<void> {
    if (this.writes > 0) return this.send().then(() => undefined);
    // Batches already sent: the last one's answer comes after all of theirs.
    const last = this.seq;
    if (!this.waiting.has(last)) return Promise.resolve();
    return new Promise((resolve) => this.chain(last, () => resolve()));
  }

  async changes(sql: string, params: readonly SQLInputValue[]): Promise<number> {
    const answer = await this.send({ id: this.idOf(sql), params });
    if (answer?.changesError !== undefined) throw new Error(answer.changesError);
    return answer?.changes ?? 0;
  }

  /** Commits what is queued, then stops the thread (its connection closes). */
  async close(): Promise<void> {
    if (this.stopped) return;
    // Referenced until it exits: the process waits for the last commit and the connection's close.
    this.closing = true;
    this.worker.ref();
    await this.flush();
    this.worker.postMessage({ close: true });
    await this.exited;
  }

  private idOf(sql: string): number {
    let id = this.ids.get(sql);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(sql, id);
      this.define.push([id, sql]);
    }
    return id;
  }

  private send(changes?: Batch['changes']): Promise<Answer | null> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch: Batch = {
      seq: ++this.seq,
      define: this.define,
      ops: this.ops.join(''),
      writes: this.writes,
      ...(changes ? { changes } : {}),
    };
    this.define = [];
    this.ops = [];
    this.writes = 0;
    if (this.stopped) {
      if (batch.writes > 0) this.options.onError('the writer thread has stopped', batch.writes);
      return Promise.resolve(null);
    }
    const answered = new Promise<Answer | null>((wake) => this.waiting.set(batch.seq, { writes: batch.writes, wake }));
    // While a batch is out, the thread keeps the process alive: a close awaiting it must see it done.
    this.worker.ref();
    this.worker.postMessage(batch);
    return answered;
  }

  private chain(seq: number, then: () => void): void {
    const batch = this.waiting.get(seq)!;
    const wake = batch.wake;
    batch.wake = (answer) => {
      wake(answer);
      then();
    };
  }

  private answered(answer: Answer): void {
    if (answer.failed) this.options.onError(answer.failed.message, answer.failed.writes);
    const batch = this.waiting.get(answer.seq);
    this.waiting.delete(answer.seq);
    if (this.waiting.size === 0 && !this.closing) this.worker.unref();
    batch?.wake(answer);
  }
}
