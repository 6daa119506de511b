import { describe, expect, it } from 'vitest';
import { mediaUrl, newMediaId } from '../../src/index.js';

const stored = { session: 's1', id: 'q3Yb1b7yQ2uFJ3cT0gqJ5A', mimetype: 'image/jpeg', filename: null };

describe('media.url', () => {
  it('is <base>/api/files/<session>/<id>.<extension of the media type>', () => {
    expect(mediaUrl('https://api.example.com', stored)).toBe('https://api.example.com/api/files/s1/q3Yb1b7yQ2uFJ3cT0gqJ5A.jpeg');
    expect(mediaUrl('http://localhost:3000/', { ...stored, mimetype: 'audio/ogg; codecs=opus' })).toBe(
      'http://localhost:3000/api/files/s1/q3Yb1b7yQ2uFJ3cT0gqJ5A.oga',
    );
  });

  it('takes the extension of the file name first, and has none when neither tells one', () => {
    expect(mediaUrl('https://x', { ...stored, filename: 'Report.Final.PDF' })).toMatch(/\.PDF$/);
    expect(mediaUrl('https://x', { ...stored, filename: 'no extension', mimetype: 'application/x-unknown-thing' })).toBe(
      'https://x/api/files/s1/q3Yb1b7yQ2uFJ3cT0gqJ5A',
    );
  });

  it('ids are 22 base64url characters (128 random bits), never repeated', () => {
    const ids = new Set(Array.from({ length: 1000 }, newMediaId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
