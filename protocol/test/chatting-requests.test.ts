import { describe, expect, it } from 'vitest';
import {
  decodeBase64,
  isReaction,
  MessageContactVcardRequest,
  MessageImageRequest,
  MessageRef,
  MessageVoiceRequest,
  SendListRequest,
} from '../src/index.js';

const paths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : result.error!.issues.map((issue) => issue.path.join('.'));

describe('decodeBase64', () => {
  it('decodes standard and URL-safe base64, padded or not', () => {
    expect(decodeBase64('QUJD')).toEqual(Buffer.from('ABC'));
    expect(decodeBase64('QUI=')).toEqual(Buffer.from('AB'));
    expect(decodeBase64('QUI')).toEqual(Buffer.from('AB'));
    expect(decodeBase64('-_8')).toEqual(Buffer.from([0xfb, 0xff]));
  });

  it('is null for anything Buffer would silently skip or cut', () => {
    for (const bad of ['QU JD', 'QUJD\n', 'QQ==QUJD', 'Q', 'QUJDR', 'QUI===', 'QUI=A', 'ÄÖÜ=']) expect(decodeBase64(bad), bad).toBeNull();
  });
});

describe('isReaction', () => {
  it('takes one emoji, with skin tone, flag or joined sequence, or ""', () => {
    for (const ok of ['', '👍', '👍🏽', '🇩🇪', '👨‍👩‍👧', '❤️', '1️⃣']) expect(isReaction(ok), ok).toBe(true);
  });

  it('refuses text and several emoji', () => {
    for (const bad of ['a', 'ok', '👍👍', '👍 ', '1']) expect(isReaction(bad), bad).toBe(false);
  });
});

describe('MessageRef', () => {
  it('takes full message ids of direct, group and lid chats, with a participant', () => {
    for (const id of ['false_11111111111@c.us_AAAA', 'true_120363000000000001@g.us_3EB0ABC_15551234567@c.us', 'false_123456@lid_ABC']) {
      expect(MessageRef.safeParse(id).success, id).toBe(true);
    }
  });

  it('refuses bare ids and unknown chat kinds', () => {
    for (const id of ['AAAA', 'maybe_11111111111@c.us_AAAA', 'false_bob_AAAA', 'false_1@c.us_A-B'])
      expect(MessageRef.safeParse(id).success, id).toBe(false);
  });
});

describe('media requests', () => {
  it('session defaults to "default"; voice MIME type to ogg/opus', () => {
    const voice = MessageVoiceRequest.parse({ chatId: '1@c.us', file: { url: 'https://example.com/v.ogg' } });
    expect(voice).toMatchObject({ session: 'default', convert: false, file: { mimetype: 'audio/ogg; codecs=opus' } });
  });

  it('names the file field at fault', () => {
    const file = (f: object) => paths(MessageImageRequest.safeParse({ chatId: '1@c.us', file: f }));
    expect(file({ mimetype: 'image/png', data: 'QUJD', filename: '../etc/passwd' })).toEqual(['file.filename']);
    expect(file({ mimetype: 'image/png', url: 'javascript:alert(1)' })).toEqual(['file.url']);
    expect(file({ mimetype: 'image/png' })).toEqual(['file.url']);
  });
});

describe('interactive requests', () => {
  it('a list row id and title limits are the messaging service’s', () => {
    const list = (rows: object[]) =>
      paths(SendListRequest.safeParse({ chatId: '1@c.us', message: { title: 't', button: 'b', sections: [{ title: 's', rows }] } }));
    expect(list([{ title: 'x'.repeat(25), rowId: 'a' }])).toEqual(['message.sections.0.rows.0.title']);
    expect(list([{ title: 'x', rowId: '' }])).toEqual(['message.sections.0.rows.0.rowId']);
  });

  it('a vCard must look like one', () => {
    const parsed = MessageContactVcardRequest.safeParse({ chatId: '1@c.us', contacts: [{ vcard: 'FN:Jane' }] });
    expect(paths(parsed)).toEqual(['contacts.0.vcard']);
  });
});
