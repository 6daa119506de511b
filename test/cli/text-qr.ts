import { createRequire } from 'node:module';
import type jsQRModule from 'jsqr';

// jsqr is CommonJS whose module.exports is the function (and its `default` too).
const jsQR = createRequire(import.meta.url)('jsqr') as typeof jsQRModule.default;

const HALF_BLOCKS = /^[ ▀▄█]+$/u;
/** Which halves of a character cell a glyph inks: [top, bottom]. */
const INK: Record<string, [boolean, boolean]> = { ' ': [false, false], '▀': [true, false], '▄': [false, true], '█': [true, true] };
/** Pixels per QR module in the rendering jsQR reads. */
const SCALE = 4;

/** The QR codes in a terminal's output: each run of lines of half blocks, in order. */
export function qrBlocks(output: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] = [];
  for (const line of output.split('\n')) {
    if (line.length >= 21 && HALF_BLOCKS.test(line)) current.push(line);
    else if (current.length > 0) {
      blocks.push(current);
      current = [];
    }
  }
  if (current.length > 0) blocks.push(current);
  return blocks;
}

/**
 * Decodes a QR printed as text the way a terminal shows it: ink in the foreground color (light,
 * on a dark background), each character two modules high. Returns the decoded value, or null.
 */
export function decodeTextQr(lines: string[]): string | null {
  const width = Math.max(...lines.map((line) => [...line].length));
  const height = lines.length * 2;
  const pixels = new Uint8ClampedArray(width * SCALE * height * SCALE * 4);
  lines.forEach((line, row) => {
    [...line].forEach((glyph, column) => {
      const [top, bottom] = INK[glyph] ?? [false, false];
      for (const [half, inked] of [
        [0, top],
        [1, bottom],
      ] as const) {
        const value = inked ? 255 : 0;
        for (let dy = 0; dy < SCALE; dy++) {
          for (let dx = 0; dx < SCALE; dx++) {
            const offset = (((row * 2 + half) * SCALE + dy) * width * SCALE + column * SCALE + dx) * 4;
            pixels.set([value, value, value, 255], offset);
          }
        }
      }
    });
  });
  return jsQR(pixels, width * SCALE, height * SCALE, { inversionAttempts: 'dontInvert' })?.data ?? null;
}
