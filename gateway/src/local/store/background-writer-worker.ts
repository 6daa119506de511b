/** WAL pages (4 KiB) the history file's writer lets accumulate before it checkpoints. */
const HISTORY_CHECKPOINT_PAGES = 10_000;

/** What the writer's WAL file is cut back to after each checkpoint (`journal_size_limit`). */
const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The code of BackgroundWriter's thread (background-writer.ts), evaluated, so there is no file to
 * find from both `src` (tests) and `dist`. It takes its modules from `process.getBuiltinModule`:
 * the code may run as a script or, when the process was started with `--input-type=module`, as a
 * module.
 *
 * A message is one batch: statements to define, then the writes as one text (`encodeWrite`), run
 * in one transaction; then, optionally, one write whose changed rows are answered. Answers come
 * back in the order of the batches, each with what was lost and whether writes are held.
 *
 * A batch the storage refuses (a full disk, a read-only or vanished file: `STORAGE_CODES`) is
 * held, with every batch after it, in order, and retried every `retryMs` and at each new batch
 * until it commits: a 201'd message is never dropped from the history for a full disk. Only a
 * batch that can never be written (a constraint, a bug) is dropped and reported lost, and the
 * newest batches once what is held reaches `maxHeldChars` (memory stays bounded; the gateway
 * refuses calls that store while anything is held, so only events from outside arrive then).
 *
 * The WAL: its connection checkpoints the file itself every ~40 MB of WAL (off the event loop),
 * cuts the file back to `journal_size_limit` after each, and to nothing once idle for `idleMs`.
 */
export const WORKER_CODE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ' + Number(workerData.busyTimeoutMs) + ';');
// Checkpoints every ~40 MB of WAL instead of SQLite's 4 MB: a message's random id puts each insert
// on a random page of the key index, and a page changed many times between two checkpoints is
// copied into the file once. Measured: about a fifth less written per send (docs/architecture.md).
db.exec('PRAGMA wal_autocheckpoint = ${HISTORY_CHECKPOINT_PAGES};');
// SQLite reuses a WAL from its start after a checkpoint, and never shrinks the file by itself.
db.exec('PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES};');
const statements = [];
const text = (error) => String(error && error.message ? error.message : error);
// SQLite's primary result codes that say the storage failed, not the statement: BUSY, LOCKED,
// NOMEM, READONLY, IOERR, FULL, CANTOPEN. A batch that failed so is held and retried.
const STORAGE_CODES = new Set([5, 6, 7, 8, 10, 13, 14]);
const storageFailed = (error) => typeof error?.errcode === 'number' && STORAGE_CODES.has(error.errcode & 0xff);

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

// Runs every write of a batch's text; answers the rows the last one changed.
function run(ops) {
  let changes = 0;
  for (let pos = 0; pos < ops.length; ) {
    let space = ops.indexOf(' ', pos);
    const statement = statements[Number(ops.slice(pos, space))];
    pos = space + 1;
    space = ops.indexOf(' ', pos);
    const params = new Array(Number(ops.slice(pos, space)));
    pos = decode(ops, space + 1, params);
    changes = Number(statement.run(...params).changes);
  }
  return changes;
}

function commit(ops) {
  try {
    db.exec('BEGIN');
    run(ops);
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

// Batches not committed yet, oldest first, from index head.
const held = [];
let head = 0;
let heldChars = 0;
let heldWrites = 0;
let reason = null;
let retryTimer = null;
let idleTimer = null;
let lost = [];

const holding = () => (reason === null ? null : { reason, writes: heldWrites });

function hold(ops, writes) {
  if (head < held.length && heldChars + ops.length > workerData.maxHeldChars) {
    lost.push({ message: 'the storage still fails (' + reason + ') and the writes held for it reached their limit', writes });
    return;
  }
  held.push({ ops, writes });
  heldChars += ops.length;
  heldWrites += writes;
}

// Commits what is held, in order, until the storage fails; a batch that cannot be written at all is dropped.
function drain() {
  let committed = false;
  while (head < held.length) {
    const batch = held[head];
    try {
      commit(batch.ops);
      committed = true;
    } catch (error) {
      if (storageFailed(error)) {
        reason = text(error);
        if (head > 1024) {
          held.splice(0, head);
          head = 0;
        }
        retryTimer ??= setInterval(retry, workerData.retryMs);
        return;
      }
      lost.push({ message: text(error), writes: batch.writes });
    }
    held[head++] = undefined;
    heldChars -= batch.ops.length;
    heldWrites -= batch.writes;
  }
  held.length = 0;
  head = 0;
  reason = null;
  if (retryTimer) clearInterval(retryTimer);
  retryTimer = null;
  if (committed) idle();
}

// Once nothing is written for a moment, the WAL file is emptied: no disk is kept for it.
function idle() {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    try {
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // A reader in the way: the next idle moment tries again.
    }
  }, workerData.idleMs);
}

function report(answer) {
  answer.holding = holding();
  if (lost.length > 0) answer.lost = lost;
  lost = [];
  parentPort.postMessage(answer);
}

function retry() {
  const was = reason;
  // A checkpoint first: what it moves out of the WAL may be the room the held batches need.
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch {
    // The disk may be too full for it too; the commit below says what is wrong.
  }
  drain();
  if (reason !== was || lost.length > 0) report({});
}

parentPort.on('message', (batch) => {
  if (batch.close) {
    drain();
    if (heldWrites > 0) lost.push({ message: 'the writer closed while the storage failed (' + reason + ')', writes: heldWrites });
    if (lost.length > 0) parentPort.postMessage({ lost, holding: null });
    if (retryTimer) clearInterval(retryTimer);
    if (idleTimer) clearTimeout(idleTimer);
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
  if (batch.ops.length > 0) hold(batch.ops, batch.writes);
  drain();
  if (batch.changes !== undefined) {
    if (reason !== null) {
      // After what is held, in order; its rows are not counted.
      hold(batch.changes, 1);
      answer.changes = 0;
    } else {
      try {
        answer.changes = run(batch.changes);
      } catch (error) {
        answer.changesError = text(error);
      }
    }
  }
  report(answer);
});
`;
