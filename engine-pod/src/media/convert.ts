import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError, invalidField } from '../command-error.js';
import type { MediaFile } from './media-store.js';

/**
 * Media conversion with Debian's ffmpeg (scripts/ensure-ffmpeg.sh installs it; the gateway and
 * engine images carry it): a voice note to OGG/Opus and a video to MP4 (H.264/AAC), the forms
 * WhatsApp plays everywhere. Each run is bounded: the input's size, the output's size, the time
 * it may take (ffmpeg is killed after it), and how many run at once in this process. The input is
 * a file in a private temporary directory (an MP4 cannot be read from a pipe: its index may be at
 * its end), removed afterwards whatever happens.
 */

export type ConversionTarget = 'voice' | 'video';

export interface ConversionLimits {
  readonly maxInputBytes: number;
  readonly maxOutputBytes: number;
  readonly timeoutMs: number;
}

export const DEFAULT_CONVERSION_LIMITS: ConversionLimits = {
  maxInputBytes: 32 * 1024 * 1024,
  maxOutputBytes: 64 * 1024 * 1024,
  // Below the 10 s a cluster gateway waits for a command's answer, download included.
  timeoutMs: 9_000,
};

/** What each target becomes: ffmpeg's output options, and the result's type and name. */
const TARGETS: Record<ConversionTarget, { readonly args: readonly string[]; readonly mimetype: string; readonly extension: string }> = {
  voice: {
    args: ['-vn', '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-f', 'ogg'],
    mimetype: 'audio/ogg; codecs=opus',
    extension: 'ogg',
  },
  video: {
    args: [
      '-map', '0:v:0', '-map', '0:a:0?',
      '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'main', '-pix_fmt', 'yuv420p',
      // H.264 with 4:2:0 needs even dimensions.
      '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2',
      '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', '-f', 'mp4',
    ], // prettier-ignore
    mimetype: 'video/mp4',
    extension: 'mp4',
  },
};

/** The ffmpeg to run: SWITCHBOARD_FFMPEG_PATH, else `ffmpeg` on the PATH. */
export function ffmpegPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.SWITCHBOARD_FFMPEG_PATH || 'ffmpeg';
}

/** At most this many ffmpeg processes at once in this process; more wait their turn. */
const MAX_RUNNING = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function turn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RUNNING) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * The file converted for `target`. A file ffmpeg cannot read, one too large or one that takes too
 * long is a 400 naming `field` (`file`, `file.url`: where the request gave it) and why; no ffmpeg
 * on this machine is an ENGINE_ERROR (500) that says so.
 */
export async function convertMedia(
  file: MediaFile,
  target: ConversionTarget,
  field: string,
  limits: ConversionLimits = DEFAULT_CONVERSION_LIMITS,
  ffmpeg: string = ffmpegPath(),
): Promise<MediaFile> {
  if (file.data.length === 0) throw invalidField(field, 'is empty: there is nothing to convert');
  if (file.data.length > limits.maxInputBytes) {
    throw invalidField(field, `is ${file.data.length} bytes; files to convert may have at most ${limits.maxInputBytes}`);
  }
  const { args, mimetype, extension } = TARGETS[target];
  return turn(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-convert-'));
    try {
      const input = join(dir, 'input');
      const output = join(dir, `output.${extension}`);
      await writeFile(input, file.data, { mode: 0o600 });
      const outcome = await run(
        ffmpeg,
        ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, ...args, '-fs', String(limits.maxOutputBytes), '-y', output],
        limits.timeoutMs,
        input,
      );
      if (outcome.kind === 'missing') {
        throw new CommandError(
          'ENGINE_ERROR',
          `media conversion needs ffmpeg, which is not installed here (${ffmpeg}); scripts/ensure-ffmpeg.sh installs it`,
          {
            ffmpeg,
          },
        );
      }
      if (outcome.kind === 'timeout') throw invalidField(field, `could not be converted within ${limits.timeoutMs / 1000} s`);
      if (outcome.kind === 'failed') throw invalidField(field, `could not be converted: ${outcome.reason}`);
      const size = (await stat(output).catch(() => null))?.size ?? 0;
      if (size === 0) throw invalidField(field, `could not be converted: it has no ${target === 'voice' ? 'audio' : 'video'} ffmpeg can read`);
      if (size >= limits.maxOutputBytes) throw invalidField(field, `converted, it would be larger than ${limits.maxOutputBytes} bytes`);
      return { mimetype, filename: convertedName(file.filename, extension), data: await readFile(output) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

function convertedName(filename: string | null, extension: string): string | null {
  if (!filename) return null;
  const dot = filename.lastIndexOf('.');
  return `${dot > 0 ? filename.slice(0, dot) : filename}.${extension}`;
}

type RunOutcome = { kind: 'ok' } | { kind: 'missing' } | { kind: 'timeout' } | { kind: 'failed'; reason: string };

/** Runs ffmpeg; its last error line is the reason a failure gives. Killed (SIGKILL) after `timeoutMs`. */
function run(command: string, args: readonly string[], timeoutMs: number, input: string): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Only the end matters, and ffmpeg may print a line per frame: keep the last few KiB.
      stderr = (stderr + chunk).slice(-4096);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code === 'ENOENT' ? { kind: 'missing' } : { kind: 'failed', reason: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) resolve({ kind: 'timeout' });
      else if (code === 0) resolve({ kind: 'ok' });
      else resolve({ kind: 'failed', reason: lastLine(stderr, input) ?? `ffmpeg exited with ${code}` });
    });
  });
}

/** ffmpeg's last line, without the input's temporary path (which says nothing to the client). */
function lastLine(text: string, input: string): string | null {
  const line = text.trim().split('\n').pop()?.replaceAll(`${input}:`, '').replaceAll(input, '').trim();
  return line || null;
}
