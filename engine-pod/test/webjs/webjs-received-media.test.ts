import { afterEach, describe, expect, it } from 'vitest';
import { memoryMediaStore } from '../support/memory-media-store.js';
import { expectValidEnvelopes, tick, webjsSession } from './harness.js';

// Received media on WEBJS: the library's Message.downloadMedia (MessageMedia, base64), kept with
// the session's media store before the message's events go out, as NOWEB keeps its files.

const ALICE = '15551234567@c.us';
const PHOTO = Buffer.from('\xff\xd8\xff\xe0 a jpeg, as the browser decrypted it', 'latin1');

const sessions: ReturnType<typeof webjsSession>[] = [];
async function working(kept = memoryMediaStore()) {
  const s = webjsSession({ media: { store: kept.store, urlFor: kept.urlFor } });
  sessions.push(s);
  await s.working();
  return { s, kept };
}
afterEach(() => {
  for (const { events, dropped } of sessions.splice(0)) expectValidEnvelopes(events, dropped);
});

/** Until the download has been kept and both events are out. */
async function settled(s: ReturnType<typeof webjsSession>) {
  for (let i = 0; i < 50 && s.payloads('message').length === 0; i++) await tick(1);
}

describe('WEBJS received media', () => {
  it('is downloaded once and kept before message and message.any go out, both with media {url, mimetype, filename}', async () => {
    const { s, kept } = await working();
    s.client.receiveMedia(
      { fromMe: false, chatId: ALICE, id: '3EB0PHOTO1', type: 'document', body: 'the plan', extra: { mimetype: 'application/pdf' } },
      { mimetype: 'application/pdf', data: PHOTO.toString('base64'), filename: 'plan.pdf' },
    );
    expect(s.order()).toEqual([]);
    await settled(s);
    expect(s.order()).toEqual(['message', 'message.any']);
    expect(s.client.calls.filter((call) => call.startsWith('downloadMedia'))).toEqual([`downloadMedia false_${ALICE}_3EB0PHOTO1`]);
    const [any, received] = [s.payloads('message.any')[0]!, s.payloads('message')[0]!];
    expect(received).toEqual(any);
    expect(received).toMatchObject({
      id: `false_${ALICE}_3EB0PHOTO1`,
      hasMedia: true,
      media: { url: 'https://sb.example.com/api/files/webjs-1/media1.pdf', mimetype: 'application/pdf', filename: 'plan.pdf' },
    });
    const file = await kept.store.get('webjs-1', 'media1');
    expect(file?.data.equals(PHOTO)).toBe(true);
    expect(file?.meta).toMatchObject({ mimetype: 'application/pdf', filename: 'plan.pdf', size: PHOTO.length });
  });

  it('an image without a file name is kept by its type', async () => {
    const { s, kept } = await working();
    s.client.receiveMedia({ fromMe: false, chatId: ALICE, id: '3EB0PHOTO2' }, { mimetype: 'image/jpeg', data: PHOTO.toString('base64') });
    await settled(s);
    expect(s.payloads('message')[0]!.media).toEqual({
      url: 'https://sb.example.com/api/files/webjs-1/media1.jpeg',
      mimetype: 'image/jpeg',
      filename: null,
    });
    expect(kept.files.size).toBe(1);
  });

  it.each([
    ['WhatsApp Web gives no file', null],
    ['the browser throws', 'fail' as const],
  ])('%s: the message still goes out, hasMedia true and media null, and a warning is logged', async (_what, file) => {
    const { s, kept } = await working();
    s.client.receiveMedia({ fromMe: false, chatId: ALICE, id: '3EB0GONE' }, file);
    await settled(s);
    expect(s.order()).toEqual(['message', 'message.any']);
    expect(s.payloads('message')[0]).toMatchObject({ hasMedia: true, media: null });
    expect(kept.files.size).toBe(0);
    expect(s.warnings).toEqual([
      {
        obj: expect.objectContaining({ session: 'webjs-1', messageId: `false_${ALICE}_3EB0GONE` }),
        msg: 'WEBJS could not download a received file; its record has media null',
      },
    ]);
  });

  it('a host without a media store: media null, nothing logged', async () => {
    const s = webjsSession();
    sessions.push(s);
    await s.working();
    s.client.receiveMedia({ fromMe: false, chatId: ALICE, id: '3EB0NOSTORE' }, { mimetype: 'image/jpeg', data: PHOTO.toString('base64') });
    await settled(s);
    expect(s.payloads('message')[0]).toMatchObject({ hasMedia: true, media: null });
    expect(s.warnings).toEqual([]);
  });
});
