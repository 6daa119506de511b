// The screenshot through Chromium, for both browser engines: puppeteer's picture of the library's
// page, the fake WhatsApp Web as Chromium renders it, answered as a PNG.
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001717@c.us', pushName: 'Screenshot Tests' };
const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

describe.each([
  ['WEBJS', pairedWebjs],
  ['WPP', pairedWpp],
] as const)('%s screenshot through Chromium', (_engine, paired) => {
  const { run } = pairedSuite(paired, 'screenshot', ME);

  it("answers the page as Chromium renders it: a PNG of the browser's window", async () => {
    const shot = await run<{ mimetype: string; data: string }>({ op: 'session.screenshot' });
    expect(shot.mimetype).toBe('image/png');
    const png = Buffer.from(shot.data, 'base64');
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE), 'a PNG signature').toBe(true);
    // IHDR: the width and height of the page's viewport, not an empty image.
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect({ width: png.readUInt32BE(16) > 100, height: png.readUInt32BE(20) > 100 }).toEqual({ width: true, height: true });
  });
});
