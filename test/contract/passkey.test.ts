import { generateKeyPairSync } from 'node:crypto';
import { SoftAuthenticator, waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type ContractGateway, waitForStatus } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const ME = { id: '4915112345678@c.us', pushName: 'Passkey Ada' };
const RP = { rpId: 'web.whatsapp.com', origin: 'https://web.whatsapp.com' };

/** A SANDBOX session waiting for a QR scan, with a websocket client on its session.status events. */
async function scanning(name: string): Promise<WsClient> {
  const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${name}&events=session.status`);
  expect((await gw.api('POST', '/api/sessions', { name, engine: 'SANDBOX' })).status).toBe(201);
  await waitForStatus(gw, name, 'SCAN_QR_CODE');
  return ws;
}

/** A session in PASSKEY_REQUIRED for `authenticator`'s credential. */
async function passkeyRequired(name: string, authenticator: SoftAuthenticator, extra: Record<string, unknown> = {}) {
  const ws = await scanning(name);
  const simulated = await gw.api('POST', `/api/${name}/sandbox/simulate`, {
    kind: 'passkey',
    credential: authenticator.credential,
    me: ME,
    ...extra,
  });
  expect(simulated.status).toBe(201);
  await waitForStatus(gw, name, 'PASSKEY_REQUIRED');
  return ws;
}

const challengeOf = async (name: string) => (await gw.api('GET', `/api/${name}/auth/passkey/challenge`)).body;
const statusesSeen = (ws: WsClient) => ws.events('session.status').map((e) => e.payload.status as string);

describe('4.1 pairing: passkey (SANDBOX)', () => {
  it('simulate kind passkey moves SCAN_QR_CODE to PASSKEY_REQUIRED, announced by session.status', async () => {
    const ws = await scanning('pk-move');
    const res = await gw.api('POST', '/api/pk-move/sandbox/simulate', { kind: 'passkey', credential: new SoftAuthenticator().credential });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(RP);
    await waitForStatus(gw, 'pk-move', 'PASSKEY_REQUIRED');
    const event = await waitFor(() => ws.events('session.status').find((e) => e.payload.status === 'PASSKEY_REQUIRED'), 'PASSKEY_REQUIRED event');
    expect(event.session).toBe('pk-move');
    expect(event.payload.statuses.at(-1).status).toBe('PASSKEY_REQUIRED');
    ws.close();
  });

  it('GET challenge answers WebAuthn request options for the registered credential', async () => {
    const authenticator = new SoftAuthenticator();
    (await passkeyRequired('pk-challenge', authenticator)).close();
    const res = await gw.api('GET', '/api/pk-challenge/auth/passkey/challenge');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      timeout: 60_000,
      rpId: 'web.whatsapp.com',
      allowCredentials: [{ id: authenticator.id, type: 'public-key', transports: ['internal', 'hybrid'] }],
      userVerification: 'required',
    });
    expect((await challengeOf('pk-challenge')).challenge).toBe(res.body.challenge);
  });

  it('a valid assertion answers 201 and pairs: WORKING with the account, after PASSKEY_REQUIRED', async () => {
    const authenticator = new SoftAuthenticator();
    const ws = await passkeyRequired('pk-ok', authenticator);
    const res = await gw.api('POST', '/api/pk-ok/auth/passkey', authenticator.assert(await challengeOf('pk-ok')));
    expect(res.status).toBe(201);
    expect(res.body).toBe('');
    await waitForStatus(gw, 'pk-ok', 'WORKING');
    expect((await gw.api('GET', '/api/sessions/pk-ok/me')).body).toEqual(ME);
    await waitFor(() => statusesSeen(ws).includes('WORKING'), 'WORKING event');
    expect(statusesSeen(ws).slice(-2)).toEqual(['PASSKEY_REQUIRED', 'WORKING']);
    ws.close();
  });

  it('Ed25519 and RSA passkeys are verified too', async () => {
    for (const kind of ['EdDSA', 'RS256'] as const) {
      const authenticator = new SoftAuthenticator(kind);
      const name = `pk-${kind.toLowerCase()}`;
      (await passkeyRequired(name, authenticator)).close();
      const res = await gw.api('POST', `/api/${name}/auth/passkey`, authenticator.assert(await challengeOf(name)));
      expect(res.status, kind).toBe(201);
      await waitForStatus(gw, name, 'WORKING');
    }
  });

  it('with confirmation: assertion → PASSKEY_CONFIRMATION_REQUIRED, a code, confirm → WORKING', async () => {
    const authenticator = new SoftAuthenticator();
    const ws = await passkeyRequired('pk-confirm', authenticator, { confirmation: true });
    expect((await gw.api('POST', '/api/pk-confirm/auth/passkey', authenticator.assert(await challengeOf('pk-confirm')))).status).toBe(201);
    await waitForStatus(gw, 'pk-confirm', 'PASSKEY_CONFIRMATION_REQUIRED');
    expect((await gw.api('GET', '/api/sessions/pk-confirm/me')).status).toBe(422);

    const code = await gw.api('GET', '/api/pk-confirm/auth/passkey/confirmation');
    expect(code.status).toBe(200);
    expect(code.body).toEqual({ code: expect.stringMatching(/^\d{4}$/) });
    expect((await gw.api('GET', '/api/pk-confirm/auth/passkey/confirmation')).body).toEqual(code.body);

    const confirmed = await gw.api('POST', '/api/pk-confirm/auth/passkey/confirm');
    expect(confirmed.status).toBe(201);
    await waitForStatus(gw, 'pk-confirm', 'WORKING');
    await waitFor(() => statusesSeen(ws).includes('WORKING'), 'WORKING event');
    expect(statusesSeen(ws).slice(-3)).toEqual(['PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED', 'WORKING']);
    expect((await gw.api('GET', '/api/sessions/pk-confirm/me')).body).toEqual(ME);
    ws.close();
  });

  it('without a credential any passkey is allowed: allowCredentials is empty and the signature is not checked', async () => {
    (await scanning('pk-any')).close();
    expect((await gw.api('POST', '/api/pk-any/sandbox/simulate', { kind: 'passkey' })).status).toBe(201);
    await waitForStatus(gw, 'pk-any', 'PASSKEY_REQUIRED');
    const options = await challengeOf('pk-any');
    expect(options.allowCredentials).toEqual([]);
    const stranger = new SoftAuthenticator();
    const assertion = stranger.assert(options, { signWith: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey });
    expect((await gw.api('POST', '/api/pk-any/auth/passkey', assertion)).status).toBe(201);
    await waitForStatus(gw, 'pk-any', 'WORKING');
    expect((await gw.api('GET', '/api/sessions/pk-any/me')).body).toEqual({ id: '15550000000@c.us', pushName: 'Sandbox' });
  });

  it('a restart while PASSKEY_REQUIRED goes back to SCAN_QR_CODE: an unfinished pairing is not kept', async () => {
    (await passkeyRequired('pk-restart', new SoftAuthenticator())).close();
    expect((await gw.api('POST', '/api/sessions/pk-restart/restart')).status).toBe(201);
    await waitForStatus(gw, 'pk-restart', 'SCAN_QR_CODE');
  });
});

describe('4.1 pairing: passkey assertions that do not hold are 400s naming the field, and change nothing', () => {
  const authenticator = new SoftAuthenticator();
  beforeAll(async () => {
    (await passkeyRequired('pk-bad', authenticator)).close();
  });

  const refused = async (assertion: unknown) => {
    const res = await gw.api('POST', '/api/pk-bad/auth/passkey', assertion);
    expect(res.status).toBe(400);
    return res.body.details as { path: string; reason: string }[];
  };

  it('a challenge other than the pending one', async () => {
    const details = await refused(authenticator.assert(await challengeOf('pk-bad'), { challenge: 'c29tZS1vdGhlci1jaGFsbGVuZ2U' }));
    expect(details).toEqual([{ path: 'body.response.clientDataJSON', reason: expect.stringContaining('challenge') }]);
  });

  it('another origin, or a registration instead of an assertion', async () => {
    const options = await challengeOf('pk-bad');
    expect(await refused(authenticator.assert(options, { origin: 'https://evil.example' }))).toEqual([
      { path: 'body.response.clientDataJSON', reason: expect.stringContaining('origin') },
    ]);
    expect(await refused(authenticator.assert(options, { type: 'webauthn.create' }))).toEqual([
      { path: 'body.response.clientDataJSON', reason: expect.stringContaining('webauthn.get') },
    ]);
  });

  it('another relying party, or no user verification', async () => {
    const options = await challengeOf('pk-bad');
    expect(await refused(authenticator.assert(options, { rpId: 'evil.example' }))).toEqual([
      { path: 'body.response.authenticatorData', reason: expect.stringContaining('rpIdHash') },
    ]);
    expect(await refused(authenticator.assert(options, { flags: 0x01 }))).toEqual([
      { path: 'body.response.authenticatorData', reason: expect.stringContaining('user verified') },
    ]);
  });

  it('a signature by another key', async () => {
    const assertion = authenticator.assert(await challengeOf('pk-bad'), {
      signWith: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
    });
    expect(await refused(assertion)).toEqual([{ path: 'body.response.signature', reason: expect.stringContaining('does not verify') }]);
  });

  it('a credential that is not allowed', async () => {
    const stranger = new SoftAuthenticator();
    expect((await refused(stranger.assert(await challengeOf('pk-bad')))).map((d) => d.path)).toContain('body.rawId');
  });

  it('a malformed assertion is refused by the schema', async () => {
    const valid = authenticator.assert(await challengeOf('pk-bad'));
    const details = await refused({ ...valid, type: 'password', response: {} });
    expect(details.map((d) => d.path)).toEqual(expect.arrayContaining(['body.type', 'body.response.clientDataJSON']));
    expect((await refused({ ...valid, response: { ...valid.response, clientDataJSON: 'bm90IGpzb24' } }))[0]).toEqual({
      path: 'body.response.clientDataJSON',
      reason: 'is not base64url of a JSON object',
    });
  });

  it('after all those the session is still PASSKEY_REQUIRED and a valid assertion still pairs', async () => {
    expect((await gw.api('GET', '/api/sessions/pk-bad')).body.status).toBe('PASSKEY_REQUIRED');
    expect((await gw.api('POST', '/api/pk-bad/auth/passkey', authenticator.assert(await challengeOf('pk-bad')))).status).toBe(201);
    await waitForStatus(gw, 'pk-bad', 'WORKING');
  });
});

describe('4.1 pairing: passkey operations outside their status', () => {
  it('challenge and assertion need PASSKEY_REQUIRED; confirmation and confirm need PASSKEY_CONFIRMATION_REQUIRED', async () => {
    const authenticator = new SoftAuthenticator();
    (await scanning('pk-status')).close();
    const assertion = authenticator.assert({ challenge: 'AAAA', rpId: RP.rpId });
    const calls: [string, string, unknown, string][] = [
      ['GET', '/api/pk-status/auth/passkey/challenge', undefined, 'PASSKEY_REQUIRED'],
      ['POST', '/api/pk-status/auth/passkey', assertion, 'PASSKEY_REQUIRED'],
      ['GET', '/api/pk-status/auth/passkey/confirmation', undefined, 'PASSKEY_CONFIRMATION_REQUIRED'],
      ['POST', '/api/pk-status/auth/passkey/confirm', undefined, 'PASSKEY_CONFIRMATION_REQUIRED'],
    ];
    for (const [method, path, body, expected] of calls) {
      const res = await gw.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.details).toEqual({ session: 'pk-status', status: 'SCAN_QR_CODE', expected: [expected] });
    }
    await gw.api('POST', '/api/pk-status/sandbox/simulate', { kind: 'passkey', credential: authenticator.credential });
    await waitForStatus(gw, 'pk-status', 'PASSKEY_REQUIRED');
    const early = await gw.api('GET', '/api/pk-status/auth/passkey/confirmation');
    expect(early.status).toBe(422);
    expect(early.body.details).toEqual({ session: 'pk-status', status: 'PASSKEY_REQUIRED', expected: ['PASSKEY_CONFIRMATION_REQUIRED'] });
  });

  it('simulate kind passkey needs SCAN_QR_CODE', async () => {
    await gw.api('POST', '/api/sessions', { name: 'pk-working', engine: 'SANDBOX' });
    await waitForStatus(gw, 'pk-working', 'SCAN_QR_CODE');
    await gw.api('POST', '/api/pk-working/sandbox/simulate', { kind: 'scan' });
    await waitForStatus(gw, 'pk-working', 'WORKING');
    const res = await gw.api('POST', '/api/pk-working/sandbox/simulate', { kind: 'passkey' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({ session: 'pk-working', status: 'WORKING', expected: ['SCAN_QR_CODE'] });
  });

  it('a stopped session answers 422, an unknown one 404', async () => {
    await gw.api('POST', '/api/sessions', { name: 'pk-stopped', engine: 'SANDBOX', start: false });
    const stopped = await gw.api('GET', '/api/pk-stopped/auth/passkey/challenge');
    expect(stopped.status).toBe(422);
    expect(stopped.body.details).toMatchObject({ session: 'pk-stopped', status: 'STOPPED' });
    for (const [method, path] of [
      ['GET', '/api/ghost/auth/passkey/challenge'],
      ['GET', '/api/ghost/auth/passkey/confirmation'],
      ['POST', '/api/ghost/auth/passkey/confirm'],
    ]) {
      const res = await gw.api(method!, path!);
      expect(res.status, path).toBe(404);
      expect(res.body.details).toEqual({ session: 'ghost' });
    }
    const assertion = new SoftAuthenticator().assert({ challenge: 'AAAA', rpId: RP.rpId });
    expect((await gw.api('POST', '/api/ghost/auth/passkey', assertion)).status).toBe(404);
  });
});

describe('SANDBOX simulate: passkey input', () => {
  it('refuses a private key, an unknown key type and a key that is no key, naming the field', async () => {
    (await scanning('pk-input')).close();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const cases: [unknown, string][] = [
      [privateKey.export({ format: 'jwk' }), 'body.credential.publicKey.d'],
      [{ kty: 'oct', k: 'c2VjcmV0' }, 'body.credential.publicKey.kty'],
      [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }, 'body.credential.publicKey'],
      [generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }), 'body.credential.publicKey'],
    ];
    for (const [publicKey, path] of cases) {
      const res = await gw.api('POST', '/api/pk-input/sandbox/simulate', { kind: 'passkey', credential: { id: 'Y3JlZA', publicKey } });
      expect(res.status, path).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    const badId = await gw.api('POST', '/api/pk-input/sandbox/simulate', {
      kind: 'passkey',
      credential: { id: 'not base64url!', publicKey: new SoftAuthenticator().publicKey },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.details[0].path).toBe('body.credential.id');
    expect((await gw.api('GET', '/api/sessions/pk-input')).body.status).toBe('SCAN_QR_CODE');
  });
});

describe('4.1 pairing: passkey in the OpenAPI document', () => {
  it('declares the four operations with the reference schemas and their field names', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(doc.paths['/api/{session}/auth/passkey/challenge'].get.responses['200']).toBeDefined();
    expect(doc.paths['/api/{session}/auth/passkey'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/{session}/auth/passkey/confirmation'].get.responses['200']).toBeDefined();
    expect(doc.paths['/api/{session}/auth/passkey/confirm'].post.responses['201']).toBeDefined();
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.PasskeyChallenge.properties).sort()).toEqual(
      ['allowCredentials', 'challenge', 'extensions', 'rpId', 'timeout', 'userVerification'].sort(),
    );
    expect(Object.keys(schemas.PasskeyAssertionRequest.properties).sort()).toEqual(['id', 'rawId', 'response', 'type']);
    expect(Object.keys(schemas.PasskeyConfirmationResponse.properties)).toEqual(['code']);
  });
});
