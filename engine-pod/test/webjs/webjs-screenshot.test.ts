import { describe, expect, it } from 'vitest';
import { CommandError } from '../../src/index.js';
import { webjsSession } from './harness.js';

// A PNG's first bytes: what the page's screenshot is, as puppeteer returns it.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('WEBJS screenshot (GET /api/screenshot)', () => {
  it("answers the browser page's PNG, base64, while the page waits for a scan and once WORKING", async () => {
    const s = webjsSession();
    const shots: unknown[] = [];
    s.client.pupPage = {
      screenshot: async (options) => {
        shots.push(options);
        return new Uint8Array(PNG);
      },
      once: () => undefined,
    };
    await s.host.start();
    s.client.fire('qr', '2@first');
    expect(await s.host.execute({ op: 'session.screenshot' })).toEqual({ mimetype: 'image/png', data: PNG.toString('base64') });
    s.client.pair();
    expect(await s.host.execute({ op: 'session.screenshot' })).toEqual({ mimetype: 'image/png', data: PNG.toString('base64') });
    expect(shots).toEqual([{ type: 'png' }, { type: 'png' }]);
  });

  it('is a 422 (WRONG_STATUS) before the library has opened its page', async () => {
    const s = webjsSession();
    await s.host.start();
    s.client.fire('qr', '2@first');
    const refused = await s.host.execute({ op: 'session.screenshot' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandError);
    expect((refused as CommandError).code).toBe('WRONG_STATUS');
  });
});
