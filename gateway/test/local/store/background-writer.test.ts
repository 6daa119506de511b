import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { waitFor } from '@switchboard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundWriter, type BackgroundWriterOptions } from '../../../src/local/store/background-writer.js';
import { databaseFile, openDatabase } from '../../../src/local/store/database.js';

/** The built module, for a process of its own (`make build` comes before the tests). */
const BUILT = fileURLToPath(new URL('../../../dist/local/store/background-writer.js', import.meta.url));

let dir: string;
let reader: DatabaseSync;
let writer: BackgroundWriter;
let errors: [string, number][];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-writer-'));
  reader = openDatabase(dir, [{ name: 't', ddl: 'CREATE TABLE IF NOT EXISTS t (v TEXT UNIQUE)' }]);
  errors = [];
});
afterEach(async () => {
  await writer.close();
  reader.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (delayMs: number, more: Partial<BackgroundWriterOptions> = {}) =>
  (writer = new BackgroundWriter({ file: databaseFile(dir), delayMs, onError: (message, writes) => errors.push([message, writes]), ...more }));
const rows = () => (reader.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: string }[]).map((row) => row.v);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('group commit in a writer thread', () => {
  it('commits what was queued within delayMs together, in order, after that delay', async () => {
    const insert = open(50).statement('INSERT INTO t (v) VALUES (?)');
    insert.add('a');
    insert.add('b');
    await sleep(10);
    insert.add('c');
    expect(rows()).toEqual([]);
    await sleep(20);
    expect(rows()).toEqual([]);
    // The queue left 50 ms after its first write; the answer takes a moment more.
    for (let i = 0; i < 100 && rows().length === 0; i++) await sleep(10);
    expect(rows()).toEqual(['a', 'b', 'c']);
    expect(errors).toEqual([]);
  });

  it('flush resolves once everything queued before it is committed, also batches already on their way', async () => {
    const insert = open(60_000).statement('INSERT INTO t (v) VALUES (?)');
    await writer.flush();
    insert.add('a');
    const first = writer.flush();
    insert.add('b');
    await writer.flush();
    expect(rows()).toEqual(['a', 'b']);
    await first;
    insert.add('c');
    const sent = writer.flush();
    // Nothing queued any more, but the batch with 'c' is not answered yet: this one waits for it.
    await writer.flush();
    expect(rows()).toEqual(['a', 'b', 'c']);
    await sent;
  });

  it('a batch with a failing write commits none of it and says how many writes were lost; the next one commits', async () => {
    const insert = open(60_000).statement('INSERT INTO t (v) VALUES (?)');
    insert.add('x');
    insert.add('y');
    insert.add('x');
    await writer.flush();
    expect(rows()).toEqual([]);
    expect(errors).toEqual([[expect.stringMatching(/UNIQUE/), 3]]);
    insert.add('z');
    await writer.flush();
    expect(rows()).toEqual(['z']);
  });

  it('changes runs after the queued writes and answers the rows it changed; its error rejects', async () => {
    const insert = open(60_000).statement('INSERT INTO t (v) VALUES (?)');
    for (const v of ['a1', 'a2', 'b1']) insert.add(v);
    expect(await writer.changes('DELETE FROM t WHERE v LIKE ?', ['a%'])).toBe(2);
    expect(rows()).toEqual(['b1']);
    await expect(writer.changes('DELETE FROM nowhere', [])).rejects.toThrow(/no such table/);
    insert.add('c');
    await writer.flush();
    expect(rows()).toEqual(['b1', 'c']);
  });

  it('every value arrives as it was given: text of any kind, numbers, bigints and null; other values fail their own write', async () => {
    reader.exec('CREATE TABLE v (s TEXT, r REAL, i INTEGER, z)');
    const insert = open(60_000).statement('INSERT INTO v (s, r, i, z) VALUES (?, ?, ?, ?)');
    const texts = ['', 's12:ab;c d:e', '3 4 d5;', 'line\nbreak\u0000nul', 'émoji 🎉 and ü', '"json": {"a": [1, 2]}'];
    const numbers = [0, -1.5, 1795277488.612, Number.MAX_SAFE_INTEGER, 1e-7];
    for (const [k, text] of texts.entries()) insert.add(text, numbers[k % numbers.length]!, BigInt(k) * 10n ** 15n, null);
    expect(() => insert.add(new Uint8Array([1]), 1, 1, null)).toThrow(TypeError);
    await writer.flush();
    expect(errors).toEqual([]);
    const rows = reader.prepare('SELECT s, r, i, z FROM v ORDER BY rowid').all();
    expect(rows).toEqual(texts.map((text, k) => ({ s: text, r: numbers[k % numbers.length], i: k * 10 ** 15, z: null })));
  });

  it('a process with nothing else to do still waits for the last commit: close and flush keep it alive', async () => {
    open(60_000);
    const script = `
      const { BackgroundWriter } = await import(process.argv[1]);
      const writer = new BackgroundWriter({ file: process.argv[2], delayMs: 60_000, onError: (m) => console.log('error', m) });
      writer.statement('INSERT INTO t (v) VALUES (?)').add('flushed');
      await writer.flush();
      writer.statement('INSERT INTO t (v) VALUES (?)').add('closed');
      await writer.close();
      console.log('done');`;
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run make build first`);
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      pathToFileURL(BUILT).href,
      databaseFile(dir),
    ]);
    expect(stdout.trim()).toBe('done');
    expect(rows()).toEqual(['flushed', 'closed']);
  });

  it('close commits what is queued and stops the thread; a write after that is reported lost', async () => {
    const insert = open(60_000).statement('INSERT INTO t (v) VALUES (?)');
    insert.add('last');
    await writer.close();
    expect(rows()).toEqual(['last']);
    insert.add('late');
    await writer.flush();
    expect(rows()).toEqual(['last']);
    expect(errors).toEqual([['the writer thread has stopped', 1]]);
  });
});

describe('writes the storage refuses are held and retried, not dropped (issue 26, item 8)', () => {
  /** A writer whose commits give up on another connection's lock at once, told of what it holds. */
  const holdingWriter = (maxHeldChars?: number) => {
    const held: (string | null)[] = [];
    open(60_000, {
      onHolding: (holding) => held.push(holding && holding.reason),
      retryMs: 20,
      busyTimeoutMs: 0,
      ...(maxHeldChars === undefined ? {} : { maxHeldChars }),
    });
    return held;
  };

  it('a batch refused by the storage (the file locked by another writer) is held with every later one, then all are committed in order', async () => {
    const held = holdingWriter();
    const insert = writer.statement('INSERT INTO t (v) VALUES (?)');
    // Another connection holds the write lock: every commit of the writer fails with SQLITE_BUSY.
    reader.exec('BEGIN IMMEDIATE');
    insert.add('a');
    await writer.flush();
    expect(writer.holding).toMatchObject({ reason: expect.stringMatching(/locked|busy/i), writes: 1 });
    insert.add('b');
    await writer.flush();
    // Writes after a held one wait behind it, a delete too: it must not run before the rows it deletes.
    expect(await writer.changes('DELETE FROM t WHERE v = ?', ['a'])).toBe(0);
    insert.add('c');
    await writer.flush();
    expect(writer.holding).toMatchObject({ writes: 4 });
    reader.exec('COMMIT');
    expect(rows()).toEqual([]);

    await waitFor(() => writer.holding === null, 'the held writes committed');
    expect(rows()).toEqual(['b', 'c']);
    expect(errors).toEqual([]);
    expect(held).toEqual([expect.stringMatching(/locked|busy/i), null]);
  });

  it('a batch that can never be written is still dropped, and reported, when it was held first', async () => {
    holdingWriter();
    const insert = writer.statement('INSERT INTO t (v) VALUES (?)');
    reader.exec('BEGIN IMMEDIATE');
    insert.add('x');
    insert.add('x');
    await writer.flush();
    insert.add('y');
    await writer.flush();
    reader.exec('COMMIT');
    await waitFor(() => writer.holding === null, 'the held writes committed or given up');
    expect(rows()).toEqual(['y']);
    expect(errors).toEqual([[expect.stringMatching(/UNIQUE/), 2]]);
  });

  it('what is held stays bounded: past the limit the newest writes are given up, and said so', async () => {
    holdingWriter(40);
    const insert = writer.statement('INSERT INTO t (v) VALUES (?)');
    reader.exec('BEGIN IMMEDIATE');
    insert.add('first');
    await writer.flush();
    insert.add('x'.repeat(100));
    await writer.flush();
    expect(errors).toEqual([[expect.stringContaining('reached their limit'), 1]]);
    reader.exec('COMMIT');
    await waitFor(() => writer.holding === null, 'the held writes committed');
    expect(rows()).toEqual(['first']);
  });

  it('close gives up what the storage still refuses, and says how much', async () => {
    holdingWriter();
    writer.statement('INSERT INTO t (v) VALUES (?)').add('a');
    reader.exec('BEGIN IMMEDIATE');
    await writer.flush();
    await writer.close();
    reader.exec('COMMIT');
    expect(rows()).toEqual([]);
    expect(errors).toEqual([[expect.stringContaining('closed while the storage failed'), 1]]);
  });
});

describe('the WAL file does not keep the disk it took (issue 26, item 9)', () => {
  it('once the writer is idle, its WAL file is emptied', async () => {
    const insert = open(60_000, { idleMs: 50 }).statement('INSERT INTO t (v) VALUES (?)');
    // About 6 MB, under the 40 MB at which the writer checkpoints by itself.
    for (let i = 0; i < 1_500; i++) insert.add(`${i}`.padEnd(4_000, 'x'));
    await writer.flush();
    const wal = `${databaseFile(dir)}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(5_000_000);
    await waitFor(() => statSync(wal).size === 0, 'the WAL file emptied');
    expect(rows()).toHaveLength(1_500);
    expect(errors).toEqual([]);
  });

  it('under steady writes, the checkpoint at its 40 MB peak cuts the WAL file back to 4 MB instead of leaving it there', async () => {
    const insert = open(60_000, { idleMs: 60_000 }).statement('INSERT INTO t (v) VALUES (?)');
    const wal = `${databaseFile(dir)}-wal`;
    let peak = 0;
    let afterPeak = Infinity;
    // About 1 MB a batch, as a busy gateway writes, past the 10,000 pages (40 MB) at which the writer checkpoints.
    for (let batch = 0; batch < 48; batch++) {
      for (let i = 0; i < 250; i++) insert.add(`${batch}-${i}`.padEnd(4_000, 'x'));
      await writer.flush();
      const size = statSync(wal).size;
      if (size >= peak) peak = size;
      else afterPeak = Math.min(afterPeak, size);
    }
    expect(peak).toBeGreaterThan(35_000_000);
    expect(afterPeak).toBeLessThanOrEqual(4 * 1024 * 1024 + 2_000_000);
    expect(errors).toEqual([]);
  });
});
