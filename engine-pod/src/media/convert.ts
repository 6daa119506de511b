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
 * it may take (ffmpeg is killed after it), its threads and its picture size (which bound its
 * memory). How many run at once is the caller's to bound (the gateway's ConversionQueue). The
 * input is a file in a private temporary directory (an MP4 cannot be read from a pipe: its index
 * may be at its end), removed afterwards whatever happens.
 *
 * ffmpeg opens what the input names, not only the input: an HLS playlist or a concat script
 * names other files and URLs, which ffmpeg would read for the client (a local file read, or a
 * request from inside the network). So the input may be read through the `file` protocol only,
 * and only by the demuxers of plain media files (INPUT_FORMATS): no playlist, script or image
 * sequence demuxer reads it.
 */

export type ConversionTarget = 'voice' | 'video';

export interface ConversionLimits {
  readonly maxInputBytes: number;
  readonly maxOutputBytes: number;
  readonly timeoutMs: number;
}

export const DEFAULT_CONVERSION_LIMITS: ConversionLimits = {
  maxInputBytes: 32 * 1024 * 1024,
  // WhatsApp itself takes voice notes and videos up to 16 MB; the output is held in memory twice (bytes, base64).
  maxOutputBytes: 32 * 1024 * 1024,
  // Below the 10 s a cluster gateway waits for a command's answer, download included.
  timeoutMs: 9_000,
};

/**
 * The demuxers a file to convert may be read by: audio and video containers a phone or a browser
 * records, by ffmpeg's names (`mov` reads MP4, M4A and 3GP; `matroska` WebM). Playlists (hls),
 * scripts (concat) and image sequences (image2) are left out: they open further files and URLs.
 */
// prettier-ignore
const INPUT_FORMATS = ['mov', 'matroska', 'webm', 'avi', 'flv', 'mpegts', 'mpeg', 'asf', 'ogg', 'mp3', 'aac', 'wav', 'flac', 'amr', 'aiff', 'caf', 'gif'];

const MAX_PIXELS = 4096 * 2160;

/**
 * Input options: the whitelists above; a picture of at most 4096x2160 (a DCI 4K frame: a larger
 * one is refused, since decoding it alone could take gigabytes); two threads, so ffmpeg's memory
 * does not grow with the machine's cores (x264 keeps frames per thread).
 */
// prettier-ignore
const INPUT_OPTIONS = ['-protocol_whitelist', 'file', '-format_whitelist', INPUT_FORMATS.join(','), '-max_pixels', String(MAX_PIXELS), '-threads', '2'];

/** The longest side of a converted video: 1920 (1080p, WhatsApp's HD); a larger one is scaled down, keeping its shape. */
const MAX_VIDEO_SIDE = 1920;

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
      // At most MAX_VIDEO_SIDE on the longer side, and even dimensions (H.264 with 4:2:0 needs them).
      '-vf', `scale=w='trunc(min(1,${MAX_VIDEO_SIDE}/max(iw,ih))*iw/2)*2':h='trunc(min(1,${MAX_VIDEO_SIDE}/max(iw,ih))*ih/2)*2'`,
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
  const dir = await mkdtemp(join(tmpdir(), 'sb-convert-'));
  try {
    const input = join(dir, 'input');
    const output = join(dir, `output.${extension}`);
    await writeFile(input, file.data, { mode: 0o600 });
    const outcome = await run(
      ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        ...INPUT_OPTIONS,
        '-i',
        input,
        ...args,
        '-threads',
        '2',
        '-fs',
        String(limits.maxOutputBytes),
        '-y',
        output,
      ],
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
      else resolve({ kind: 'failed', reason: refusal(stderr) ?? lastLine(stderr, input) ?? `ffmpeg exited with ${code}` });
    });
  });
}

/** Why ffmpeg refused the input by the options above, said as a client understands it; null for another failure. */
function refusal(text: string): string | null {
  if (text.includes('not on whitelist')) {
    return `it is no audio or video file of a kind read here (${INPUT_FORMATS.join(', ')}); playlists and scripts that name other files are not read`;
  }
  if (text.includes('exceeds specified max pixel count')) return `its picture is larger than ${MAX_PIXELS} pixels (4096x2160)`;
  return null;
}

/** ffmpeg's last line, without the input's temporary path (which says nothing to the client). */
function lastLine(text: string, input: string): string | null {
  const line = text.trim().split('\n').pop()?.replaceAll(`${input}:`, '').replaceAll(input, '').trim();
  return line || null;
}
