import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSessionForTests } from './harness.js';

/**
 * Spec 4.4 (profile), check-exists and new message ids on NOWEB: the unmodified Baileys makes
 * the queries and app state patches, the fake server keeps what they changed.
 */
const paired = pairedSessionForTests();
const run = (command: Parameters<typeof paired.s.host.execute>[0]) => paired.s.host.execute(command);

// A 1x1 PNG: Baileys turns any image into the 640x640 JPEG the service keeps.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('NOWEB profile (spec 4.4)', () => {
  it('reads the profile: the account, its push name, no picture while none is set', async () => {
    expect(await run({ op: 'profile.get' })).toEqual({ id: paired.phone.contactId, name: 'Me', picture: null });
  });

  it('sets the About text: the server keeps it', async () => {
    expect(await run({ op: 'profile.setStatus', args: { status: 'Out sailing ⛵' } })).toEqual({ success: true });
    expect(paired.phone.profile.about).toBe('Out sailing ⛵');
  });

  it('sets the name with an app state patch; me and the profile follow', async () => {
    expect(await run({ op: 'profile.setName', args: { name: 'Ada L.' } })).toEqual({ success: true });
    await paired.phone.appState.settled();
    expect(paired.phone.appState.uploaded.map((u) => u.action.pushNameSetting?.name)).toContain('Ada L.');
    await waitFor(() => paired.s.host.me?.pushName === 'Ada L.', 'me with the new name');
    expect(((await run({ op: 'profile.get' })) as { name: string }).name).toBe('Ada L.');
  });

  it('sets the picture: the server gets a JPEG, and the profile answers its address', async () => {
    const answer = await run({ op: 'profile.setPicture', args: { file: { mimetype: 'image/png', data: PNG } } });
    expect(answer).toEqual({ success: true });
    const picture = paired.phone.profile.picture;
    expect(picture?.jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
    expect(((await run({ op: 'profile.get' })) as { picture: string }).picture).toBe(paired.phone.profile.pictureUrl);
  });

  it('removes the picture', async () => {
    expect(await run({ op: 'profile.deletePicture' })).toEqual({ success: true });
    expect(paired.phone.profile.picture).toBeNull();
    expect(((await run({ op: 'profile.get' })) as { picture: null }).picture).toBeNull();
  });
});

describe('NOWEB check-exists and new message ids', () => {
  it('a registered number answers its chat id; one without an account answers numberExists false', async () => {
    expect(await run({ op: 'account.checkNumber', args: { phone: '15557770001' } })).toEqual({
      numberExists: true,
      chatId: '15557770001@c.us',
    });
    paired.fake.notOnWhatsApp('15557770002');
    expect(await run({ op: 'account.checkNumber', args: { phone: '15557770002' } })).toEqual({ numberExists: false });
  });

  it('a new message id is the service kind, and a send with it goes out under that id', async () => {
    const { id } = (await run({ op: 'account.newMessageId' })) as { id: string };
    expect(id).toMatch(/^3EB0[0-9A-F]{18}$/);
    const sent = (await run({ op: 'send.text', args: { chatId: '15557770001@c.us', text: 'known id', linkPreview: true, id } })) as {
      id: string;
    };
    expect(sent.id).toBe(`true_15557770001@c.us_${id}`);
    await waitFor(() => paired.phone.sent.find((message) => message.id === id), 'the stanza with that id');
  });
});
