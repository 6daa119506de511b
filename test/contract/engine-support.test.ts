import { type EngineCatalogEntry, type EngineOp, type ErrorBody, supportsOperation } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
  // Stopped: no engine runs (cluster mode: no engine pod), so each answer below is the gateway's own.
  for (const [name, engine] of [
    ['ops-webjs', 'WEBJS'],
    ['ops-noweb', 'NOWEB'],
    ['ops-gows', 'GOWS'],
  ]) {
    const created = await gw.api('POST', '/api/sessions', { name, engine, start: false });
    expect(created.status, name).toBe(201);
  }
});
afterAll(async () => {
  await gw.close();
});

const PEER = '15550001111@c.us';
/** The channel operations both browser engines do (searched by text on each; neither previews posts). */
const BROWSER_CHANNEL_OPS = [
  'channels.list',
  'channels.create',
  'channels.get',
  'channels.delete',
  'channels.follow',
  'channels.unfollow',
  'channels.mute',
  'channels.unmute',
  'channels.search',
];

/** The NOT_SUPPORTED body the engine host answers too: the engine, what it lacks, the session. */
function notSupported(session: string, engine: string, what: string) {
  return {
    statusCode: 422,
    error: 'Unprocessable Entity',
    message: `engine ${engine} does not support ${what} (session '${session}')`,
    details: { session, engine },
  };
}

describe("an operation the session's engine cannot do: 422 from the gateway's engine catalog, before the command travels", () => {
  it('WEBJS: buttons, creating labels, presence, passkey pairing, in any status', async () => {
    const session = 'ops-webjs';
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/sendButtons', { session, chatId: PEER, body: 'Pick one', buttons: [{ type: 'reply', text: 'Yes' }] }, 'buttons'],
      ['POST', `/api/${session}/labels`, { name: 'Lead' }, 'labels'],
      ['GET', `/api/${session}/presence`, undefined, 'reading presence'],
      ['GET', `/api/${session}/auth/passkey/challenge`, undefined, 'passkey pairing'],
    ];
    for (const [method, path, body, what] of cases) {
      const res = await gw.api(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body, path).toEqual(notSupported(session, 'WEBJS', what));
    }
  });

  it('NOWEB: buttons and lists; simulate is for SANDBOX', async () => {
    const session = 'ops-noweb';
    const buttons = await gw.api('POST', '/api/sendButtons', {
      session,
      chatId: PEER,
      body: 'Pick one',
      buttons: [{ type: 'reply', text: 'Yes' }],
    });
    expect(buttons.status).toBe(422);
    expect(buttons.body).toEqual(notSupported(session, 'NOWEB', 'buttons'));
    const simulate = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'scan' });
    expect(simulate.status).toBe(422);
    expect((simulate.body as ErrorBody).message).toBe(`simulate works only on SANDBOX sessions; session '${session}' runs NOWEB`);
  });

  it('GOWS: what its Go engine does not do yet, from the catalog, in any status (passkey pairing never: whatsmeow has none)', async () => {
    const session = 'ops-gows';
    const cases: [EngineOp, string, string, unknown, string][] = [
      ['message.forward', 'POST', '/api/forwardMessage', { session, chatId: PEER, messageId: `false_${PEER}_AAAA` }, 'forwarding'],
      ['send.pollVote', 'POST', '/api/sendPollVote', { session, chatId: PEER, pollMessageId: `true_${PEER}_AAAA`, votes: ['a'] }, 'poll votes'],
      ['profile.get', 'GET', `/api/${session}/profile`, undefined, 'reading the profile'],
      ['auth.passkey.challenge', 'GET', `/api/${session}/auth/passkey/challenge`, undefined, 'passkey pairing'],
    ];
    const lacking = cases.filter(([op]) => !supportsOperation('GOWS', op));
    expect(lacking.map(([op]) => op)).toContain('auth.passkey.challenge');
    for (const [, method, path, body, what] of lacking) {
      const res = await gw.api(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body, path).toEqual(notSupported(session, 'GOWS', what));
    }
  });

  it('an argument the engine refuses in an operation it has: the same 422, naming the field', async () => {
    const cases: [string, string, string, unknown, string, string][] = [
      [
        'ops-webjs',
        'WEBJS',
        '/api/sendText',
        { session: 'ops-webjs', chatId: PEER, text: 'hi', id: 'CLIENTID0001' },
        'id',
        'sending with a pre-generated message id',
      ],
      [
        'ops-webjs',
        'WEBJS',
        '/api/ops-webjs/auth/request-code',
        { phoneNumber: '15551234567', method: 'sms' },
        'method',
        'registering a number by SMS or voice',
      ],
      [
        'ops-noweb',
        'NOWEB',
        '/api/ops-noweb/auth/request-code',
        { phoneNumber: '15551234567', method: 'voice' },
        'method',
        'registering a number by SMS or voice',
      ],
      [
        'ops-gows',
        'GOWS',
        '/api/ops-gows/auth/request-code',
        { phoneNumber: '15551234567', method: 'sms' },
        'method',
        'registering a number by SMS or voice',
      ],
      [
        'ops-noweb',
        'NOWEB',
        '/api/sendVoice',
        { session: 'ops-noweb', chatId: PEER, file: { mimetype: 'audio/mpeg', data: 'SUQz' }, convert: true },
        'convert',
        'converting files',
      ],
    ];
    for (const [session, engine, path, body, field, what] of cases) {
      const res = await gw.api('POST', path, body);
      expect(res.status, path).toBe(422);
      const error = res.body as ErrorBody;
      expect(error.message, path).toMatch(new RegExp(`^engine ${engine} does not support ${what}.*\\(session '${session}'\\)$`));
      expect(error.details, path).toEqual({ session, engine, field });
    }
  });

  it('an operation the engine can do is refused for the status instead: the catalog refuses only what the engine lacks', async () => {
    const res = await gw.api('POST', '/api/sendText', { session: 'ops-webjs', chatId: PEER, text: 'hi' });
    expect(res.status).toBe(422);
    expect((res.body as ErrorBody).message).toMatch(/^session 'ops-webjs' is STOPPED; this needs WORKING/);
  });

  it('WEBJS channels: the list, a follow and the directory search reach the status check; the posts preview is refused by the catalog', async () => {
    const channel = '120363000000000001@newsletter';
    for (const [method, path, body] of [
      ['GET', '/api/ops-webjs/channels', undefined],
      ['POST', `/api/ops-webjs/channels/${channel}/follow`, undefined],
      ['POST', '/api/ops-webjs/channels/search/by-text', { text: 'news' }],
    ] as const) {
      const res = await gw.api(method, path, body);
      expect(res.status, path).toBe(422);
      expect((res.body as ErrorBody).message, path).toMatch(/^session 'ops-webjs' is STOPPED; this needs WORKING/);
    }
    const preview = await gw.api('GET', `/api/ops-webjs/channels/${channel}/messages/preview`);
    expect(preview.status).toBe(422);
    expect((preview.body as ErrorBody).message).toBe("engine WEBJS does not support previewing channel posts (session 'ops-webjs')");
  });
});

describe("a calls app that rejects calls on WEBJS, which declines them (the library's Call.reject): taken like on any engine", () => {
  // No built engine is left that cannot decline a call; protocol/test/call-rejection.test.ts holds the refusal for one.
  it('on create, and a rule that does not reject or a disabled app as before', async () => {
    const apps = [{ app: 'calls', config: { dm: { reject: true }, group: { reject: false } } }];
    const created = await gw.api('POST', '/api/sessions', { name: 'calls-webjs', engine: 'WEBJS', start: false, apps });
    expect(created.status).toBe(201);
    expect((await gw.api('GET', '/api/sessions/calls-webjs?expand=apps')).body).toMatchObject({
      engine: 'WEBJS',
      apps: [{ app: 'calls', enabled: true, config: { dm: { reject: true }, group: { reject: false } } }],
    });
    const disabled = [{ app: 'calls', enabled: false }];
    expect((await gw.api('PUT', '/api/sessions/calls-webjs', { apps: disabled })).status).toBe(200);
    expect((await gw.api('DELETE', '/api/sessions/calls-webjs')).status).toBe(200);
  });

  it('on update: new rejecting apps, or a move to WEBJS that keeps them', async () => {
    const created = await gw.api('POST', '/api/sessions', { name: 'calls-noweb', engine: 'NOWEB', start: false, apps: [{ app: 'calls' }] });
    expect(created.status).toBe(201);
    const moved = await gw.api('PUT', '/api/sessions/calls-noweb', { engine: 'WEBJS' });
    expect(moved.status).toBe(200);
    expect((await gw.api('GET', '/api/sessions/calls-noweb?expand=apps')).body).toMatchObject({
      engine: 'WEBJS',
      apps: [{ app: 'calls', config: { dm: { reject: true }, group: { reject: true } } }],
    });
    expect((await gw.api('DELETE', '/api/sessions/calls-noweb')).status).toBe(200);
  });
});

describe('GET /api/server/engines: the engines this build has and what each does', () => {
  it('lists SANDBOX, NOWEB, WEBJS, GOWS and WPP, with their image, operations, events, call rejection and settings', async () => {
    const res = await gw.api('GET', '/api/server/engines');
    expect(res.status).toBe(200);
    const engines = res.body as EngineCatalogEntry[];
    expect(engines.map((engine) => engine.name)).toEqual(['SANDBOX', 'NOWEB', 'WEBJS', 'GOWS', 'WPP']);
    const [sandbox, noweb, webjs, gows, wpp] = engines as [
      EngineCatalogEntry,
      EngineCatalogEntry,
      EngineCatalogEntry,
      EngineCatalogEntry,
      EngineCatalogEntry,
    ];
    expect(sandbox).toMatchObject({ image: 'socket', callRejection: true, settings: [], pairing: ['qr', 'code', 'passkey'] });
    expect(sandbox.operations).toContain('sandbox.simulate');
    expect(noweb).toMatchObject({ image: 'socket', callRejection: true, settings: ['proxy', 'ignore', 'client', 'noweb', 'clientVersion'] });
    expect(noweb.operations).toContain('send.poll');
    expect(noweb.operations).not.toContain('send.buttons');
    expect(noweb.operations).toEqual(
      expect.arrayContaining([
        'labels.list',
        'labels.create',
        'labels.update',
        'labels.delete',
        'labels.ofChat',
        'labels.setForChat',
        'labels.chats',
      ]),
    );
    expect(noweb.events).toEqual(expect.arrayContaining(['label.upsert', 'label.deleted', 'label.chat.added', 'label.chat.deleted']));
    expect(webjs).toMatchObject({ image: 'browser', callRejection: true });
    // What whatsapp-web.js can do (engine-pod/test/webjs/ checks each op against the library's calls).
    expect(webjs.operations).toEqual(
      expect.arrayContaining([
        'auth.qr',
        'send.text',
        'send.media',
        'send.poll',
        'message.react',
        'chat.archive',
        'contacts.list',
        'group.create',
        'labels.setForChat',
        'call.reject',
        ...BROWSER_CHANNEL_OPS,
      ]),
    );
    expect(webjs.operations).not.toContain('channels.preview');
    expect(webjs.operations).not.toContain('send.buttons');
    expect(webjs.operations).not.toContain('labels.create');
    expect(webjs.events).toContain('message');
    expect(webjs.refusedArguments).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'send.text', field: 'id' })]));
    expect(gows).toMatchObject({ image: 'gows', callRejection: true, settings: ['clientVersion'], pairing: ['qr', 'code'] });
    // What GOWS does grows with its Go engine (engine-pod/test/gows/gows-binary.test.ts holds the catalog to the binary).
    expect(gows.operations).toEqual(expect.arrayContaining(['auth.qr', 'auth.requestCode', 'me', 'send.text']));
    expect(gows.operations).not.toContain('auth.passkey.challenge');
    expect(gows.events).toContain('message.ack');
    // WPPConnect on the browser image: what it does so far (engine-pod/test/wpp/ runs each through Chromium).
    // (engine-pod/test/engine-catalog.test.ts holds the whole list to the class.)
    expect(wpp).toMatchObject({ image: 'browser', callRejection: true, settings: [], pairing: ['qr', 'code'] });
    expect(wpp.operations).toEqual(
      expect.arrayContaining(['auth.qr', 'auth.requestCode', 'me', 'send.text', 'send.media', 'send.location', 'chat.seen', 'chat.typing']),
    );
    expect(wpp.events).toEqual(expect.arrayContaining(['session.status', 'message', 'message.any', 'message.ack', 'message.ack.group']));
    // Chats, presence, contacts, the profile and labels (the browser-chats, -contacts and -labels tests); saving a contact, no.
    expect(wpp.operations).toEqual(
      expect.arrayContaining([
        'chat.archive',
        'chat.read',
        'presence.set',
        'account.checkNumber',
        'contacts.block',
        'profile.setPicture',
        'labels.setForChat',
      ]),
    );
    expect(wpp.operations).not.toContain('contacts.update');
    expect(wpp.events).toEqual(expect.arrayContaining(['chat.archive', 'label.chat.added', 'label.chat.deleted']));
    expect(wpp.operations).toEqual(
      expect.arrayContaining(['group.create', 'group.participants', 'group.picture', 'status.text', 'status.delete', 'call.reject']),
    );
    expect(wpp.events).toEqual(
      expect.arrayContaining([
        'session.status',
        'message',
        'message.any',
        'message.ack',
        'message.ack.group',
        'group.v2.participants',
        'call.received',
      ]),
    );
    // Actions on messages, contact cards and polls (wpp-browser-messages); no poll votes (wa-js has none).
    expect(wpp.operations).toEqual(
      expect.arrayContaining([
        'message.react',
        'message.edit',
        'message.delete',
        'message.forward',
        'message.star',
        'message.pin',
        'send.contactVcard',
        'send.poll',
      ]),
    );
    expect(wpp.operations).not.toContain('send.pollVote');
    expect(wpp.events).toEqual(expect.arrayContaining(['message.reaction', 'message.edited', 'message.revoked', 'poll.vote']));
    // Channels (browser-channels): searched by text only, no posts preview (wa-js has neither a view search nor a posts query).
    expect(wpp.operations).toEqual(expect.arrayContaining(BROWSER_CHANNEL_OPS));
    expect(wpp.operations).not.toContain('channels.preview');
    expect(wpp.refusedArguments).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'channels.search', field: 'view' })]));
    // Statuses with a file, event messages (webjs-browser-statuses and -events, run for both browser engines) and the
    // events that translate nothing (wpp-browser-engine-events); message.waiting is WEBJS's alone.
    expect(wpp.operations).toEqual(expect.arrayContaining(['status.media', 'send.event']));
    expect(wpp.refusedArguments).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'status.media', field: 'id' })]));
    expect(wpp.events).toEqual(expect.arrayContaining(['state.change', 'group.join', 'group.leave', 'engine.event']));
    expect(wpp.events).not.toContain('message.waiting');
  });
});
