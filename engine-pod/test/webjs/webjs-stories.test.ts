import { MessageRecord } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { structures } from './library-shapes.js';
import { webjsSession } from './harness.js';

// Status updates on WEBJS: sendMessage to status@broadcast, the colour and font as the browser's
// extra options, a MessageMedia for a file. Taking one back runs through Chromium only
// (webjs-browser-statuses.test.ts): what matters there is the id WhatsApp Web gives the status.

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

async function working() {
  const s = webjsSession();
  await s.working();
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  const lastSend = () => s.client.args[s.client.calls.lastIndexOf('sendMessage status@broadcast')]!;
  return { ...s, run, lastSend };
}

describe('WEBJS status', () => {
  it('text: status@broadcast with backgroundColor and fontStyle; a font WhatsApp Web lacks is a 400', async () => {
    const s = await working();
    const record = await s.run<MessageRecord>({
      op: 'status.text',
      args: { text: 'Hello all', backgroundColor: '#38b42f', font: 2, linkPreview: false, linkPreviewHighQuality: false },
    });
    expect(MessageRecord.parse(record)).toMatchObject({ to: 'status@broadcast', fromMe: true, source: 'api', body: 'Hello all' });
    expect(s.lastSend()).toEqual([
      'status@broadcast',
      'Hello all',
      { linkPreview: false, extra: { backgroundColor: '#38b42f', fontStyle: 2 }, sendSeen: false },
    ]);
    await expect(
      s.run({ op: 'status.text', args: { text: 'x', backgroundColor: '#38b42f', font: 9, linkPreview: false, linkPreviewHighQuality: false } }),
    ).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.font' }] });
  });

  it('image: a MessageMedia with its caption', async () => {
    const s = await working();
    const record = await s.run<MessageRecord>({
      op: 'status.media',
      args: { kind: 'image', file: { mimetype: 'image/png', data: PNG }, caption: 'view', convert: false } as never,
    });
    expect(MessageRecord.parse(record)).toMatchObject({ to: 'status@broadcast', hasMedia: true });
    const [, content, options] = s.lastSend();
    expect(content).toBeInstanceOf(structures.MessageMedia);
    expect(options).toEqual({ caption: 'view', sendSeen: false });
  });
});
