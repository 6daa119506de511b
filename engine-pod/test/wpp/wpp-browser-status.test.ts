// WPP's statuses through Chromium: wa-js's `WPP.status`, unmodified, on the fake WhatsApp Web. A
// status goes out as WhatsApp Web posts it, a message to status@broadcast that the servers take.
import type { EventName, MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550008866@c.us', pushName: 'WPP Status' };

describe('WPP statuses through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    session = await pairedWpp('status', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  let posted: MessageRecord;

  it('a text status: the servers get it with its text, colour and font; answered and announced as a message to status@broadcast', async () => {
    posted = (await host.execute({
      op: 'status.text',
      args: { text: 'Out of office', backgroundColor: '#38b42f', font: 2, linkPreview: false, linkPreviewHighQuality: false },
    })) as MessageRecord;
    expect(posted).toMatchObject({ fromMe: true, to: 'status@broadcast', body: 'Out of office', source: 'api' });
    expect(posted.id).toMatch(/^true_status@broadcast_[0-9A-F]+$/);
    expect(phone.sent.at(-1)).toMatchObject({
      to: { _serialized: 'status@broadcast' },
      id: { id: posted.id.split('_')[2] },
      body: 'Out of office',
      font: 2,
      backgroundColor: 0xff38b42f,
    });
    await waitFor(() => payloads('message.any').find((p) => p.id === posted.id), 'message.any of the status');
  });

  it('a font wa-js does not post is a 400 naming font; nothing is posted', async () => {
    const sent = phone.sent.length;
    await expect(
      host.execute({
        op: 'status.text',
        args: { text: 'x', backgroundColor: '#000000', font: 7, linkPreview: false, linkPreviewHighQuality: false },
      }),
    ).rejects.toMatchObject({ code: 'INVALID', message: expect.stringContaining('font') });
    expect(phone.sent).toHaveLength(sent);
  });

  it('choosing who sees it (`contacts`) is NOT_SUPPORTED: WhatsApp Web posts to whom the status privacy names; nothing is posted', async () => {
    const sent = phone.sent.length;
    await expect(
      host.execute({
        op: 'status.text',
        args: { text: 'x', backgroundColor: '#000000', font: 0, linkPreview: false, linkPreviewHighQuality: false, contacts: ['15552220001@c.us'] },
      }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    expect(phone.sent).toHaveLength(sent);
  });

  it('deletes the status by the id its post answered: the servers are told it is revoked', async () => {
    await host.execute({ op: 'status.delete', args: { id: posted.id } });
    expect(phone.actions).toContainEqual({ type: 'status-revoke', msgId: `${posted.id}_${ME.id}` });
  });
});
