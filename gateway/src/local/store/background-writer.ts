import type { SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { WORKER_CODE } from './background-writer-worker.js';
import type { SqlWrite, SqlWrites } from './sql-writes.js';

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
  /** One write (`encodeWrite`) whose changed rows are answered. */
  readonly changes?: string;
}

/** Writes held because the storage fails: retried until they are committed (background-writer-worker.ts). */
export interface HeldWrites {
  /** SQLite's words for the last failure. */
  readonly reason: string;
  readonly writes: number;
}

/** The answer to a batch (with its `seq`), or news of held writes between batches (without). */
interface Answer {
  readonly seq?: number;
  /** Writes given up: each a batch that can never be written, or over the limit of what is held. */
  readonly lost?: { message: string; writes: number }[];
  readonly holding: HeldWrites | null;
  readonly changes?: number;
  readonly changesError?: string;
}

export interface BackgroundWriterOptions {
  /** The SQLite file; its schema is made before (the store's own connection reads it). */
  readonly file: string;
  /** How long writes wait for others to share their commit. */
  readonly delayMs: number;
  /** Writes given up: none of them is in the file. */
  readonly onError: (message: string, writes: number) => void;
  /**
   * Told when the storage starts failing (writes are held and retried, in order, until they are
   * committed) and, with null, when everything held is committed.
   */
  readonly onHolding?: (held: HeldWrites | null) => void;
  /** How often held writes are retried; 500 ms by default. */
  readonly retryMs?: number;
  /** How much held writes may take (characters of their text); 32 Mi by default, about 30,000 messages. */
  readonly maxHeldChars?: number;
  /** How long the writer waits with nothing to write before it empties the WAL file; 1 s by default. */
  readonly idleMs?: number;
  /** How long a commit waits for another connection's lock before the batch is held; 5 s by default. */
  readonly busyTimeoutMs?: number;
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
 * an in-process group commit (`WriteBatch` with a delay). A full disk loses nothing: the worker
 * holds what it cannot write and retries it (`onHolding` says when, for the gateway to refuse
 * calls that store meanwhile).
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
  private held: HeldWrites | null = null;
  private readonly exited: Promise<void>;

  constructor(private readonly options: BackgroundWriterOptions) {
    this.worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: {
        file: options.file,
        retryMs: options.retryMs ?? 500,
        maxHeldChars: options.maxHeldChars ?? 32 * 1024 * 1024,
        idleMs: options.idleMs ?? 1_000,
        busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
      },
    });
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
    const answer = await this.send(encodeWrite(this.idOf(sql), params));
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

  /** What the worker holds for want of storage now; null while it writes. */
  get holding(): HeldWrites | null {
    return this.held;
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
    for (const lost of answer.lost ?? []) this.options.onError(lost.message, lost.writes);
    if ((answer.holding === null) !== (this.held === null)) this.options.onHolding?.(answer.holding);
    this.held = answer.holding;
    if (answer.seq === undefined) return;
    const batch = this.waiting.get(answer.seq);
    this.waiting.delete(answer.seq);
    if (this.waiting.size === 0 && !this.closing) this.worker.unref();
    batch?.wake(answer);
  }
}
