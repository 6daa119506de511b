import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { processTree } from '@switchboard/testkit';

/**
 * The memory of a process and every process below it (an engine pod's node process and, for
 * WEBJS, the Chromium it starts): what a pod's cgroup is charged for, read from /proc.
 * - `rss`: the sum of each process's resident set. Pages the processes share (Chromium's
 *   binary and the zygote's copy-on-write pages) count once per process, so it overstates.
 * - `pss`: the sum of each process's proportional set: a shared page is split between its
 *   sharers, so the sum counts it once. The nearer figure to the cgroup's anonymous and mapped
 *   memory; the cgroup also charges page cache, which neither figure holds.
 * - `anon`: the proportional anonymous and shared memory (Pss_Anon + Pss_Shmem): the part that
 *   is the pod's own and that nothing but an OOM kill takes back (no swap on Kubernetes nodes).
 *   The rest of RSS is file pages (the node binary, Chromium's), which the kernel can drop and
 *   read again, and which containers of the same image share.
 */
export interface TreeMemory {
  readonly rss: number;
  readonly pss: number;
  readonly anon: number;
  readonly processes: number;
}

/** CPU time (user + system, in seconds) the tree's live processes have used so far. */
export function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: fields 14 and 15 of stat, 11 and 12 after the command name.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone since the listing
    }
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: 100 on every Linux architecture Kubernetes nodes run. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A field of /proc/<pid>/smaps_rollup or /proc/<pid>/status in bytes, or 0 when the process is gone. */
function kilobytesField(pid: number, file: 'smaps_rollup' | 'status', field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function treeMemory(root: number): TreeMemory {
  const pids = processTree(root);
  let rss = 0;
  let pss = 0;
  let anon = 0;
  for (const pid of pids) {
    rss += kilobytesField(pid, 'smaps_rollup', 'Rss');
    pss += kilobytesField(pid, 'smaps_rollup', 'Pss');
    anon += kilobytesField(pid, 'smaps_rollup', 'Pss_Anon') + kilobytesField(pid, 'smaps_rollup', 'Pss_Shmem');
  }
  return { rss, pss, anon, processes: pids.length };
}

const PAGE = 4096;
/** A pagemap entry's "present" bit (63) and its page frame number (bits 0 to 54). */
const PRESENT = 1n << 63n;
const PFN_MASK = (1n << 55n) - 1n;

/**
 * The tree's memory as if it ran alone on the machine: its distinct resident pages (by page frame,
 * from /proc/<pid>/pagemap, which shows frames to root only), each counted once however many of
 * its processes map it. PSS splits a shared page among every process on the machine that maps
 * it, so the same pod measures less PSS beside other Chromium processes (their binary's pages are
 * shared with them): 281 MiB beside other browsers where it measures 431 MiB alone. This figure
 * does not move with what else runs; it is what a node holds for the pod before other pods of its
 * image share anything. `null` when the frames cannot be read (not root).
 */
export function treeResidentAlone(root: number): number | null {
  const frames = new Set<bigint>();
  for (const pid of processTree(root)) {
    let smaps: string;
    let pagemap: number;
    try {
      smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
      pagemap = openSync(`/proc/${pid}/pagemap`, 'r');
    } catch {
      continue; // gone since the listing
    }
    try {
      for (const [start, end] of residentRanges(smaps)) {
        const entries = Buffer.alloc(((end - start) / PAGE) * 8);
        let read: number;
        try {
          read = readSync(pagemap, entries, 0, entries.length, (start / PAGE) * 8);
        } catch {
          continue; // unmapped since smaps was read
        }
        for (let at = 0; at + 8 <= read; at += 8) {
          const entry = entries.readBigUInt64LE(at);
          if ((entry & PRESENT) === 0n) continue;
          const frame = entry & PFN_MASK;
          if (frame === 0n) return null; // frames hidden: not root
          frames.add(frame);
        }
      }
    } finally {
      closeSync(pagemap);
    }
  }
  return frames.size * PAGE;
}

/** The address ranges of /proc/<pid>/smaps with resident pages: the only ones worth a pagemap read. */
function residentRanges(smaps: string): [number, number][] {
  const ranges: [number, number][] = [];
  let range: [number, number] | null = null;
  for (const line of smaps.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    // User space ends below 2^47; the kernel's vsyscall page above it is no process's own.
    if (header) range = parseInt(header[1]!, 16) < 2 ** 47 ? [parseInt(header[1]!, 16), parseInt(header[2]!, 16)] : null;
    else if (range && line.startsWith('Rss:') && !/^Rss:\s+0 kB/.test(line)) ranges.push(range);
  }
  return ranges;
}

/** Each process of the tree, with its PSS and its command line (Chromium's children rewrite theirs into one string). */
export function processesOf(root: number): { readonly pid: number; readonly pss: number; readonly command: string }[] {
  return processTree(root).map((pid) => {
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      // gone since the listing
    }
    return { pid, pss: kilobytesField(pid, 'smaps_rollup', 'Pss'), command };
  });
}

/** The highest resident set the process itself has had (VmHWM): a peak no sampling misses. */
export function peakRss(pid: number): number {
  return kilobytesField(pid, 'status', 'VmHWM');
}

/** Samples `treeMemory(root)` every `everyMs` until stopped; keeps the highest of each figure. */
export class TreeMemorySampler {
  private peak: TreeMemory = { rss: 0, pss: 0, anon: 0, processes: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly root: number,
    everyMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const now = treeMemory(this.root);
    this.peak = {
      rss: Math.max(this.peak.rss, now.rss),
      pss: Math.max(this.peak.pss, now.pss),
      anon: Math.max(this.peak.anon, now.anon),
      processes: Math.max(this.peak.processes, now.processes),
    };
  }

  stop(): TreeMemory {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}
