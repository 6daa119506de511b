import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './support/gateway.js';

// Issue 12, item 25: every rule a validator enforces is in the schema that generates the OpenAPI
// document, so generated clients (and the fuzz pass of `make fuzz`) agree with the server.

let gw: TestGateway;
// The served document: JSON Schema, read loosely.
let doc: any;
beforeAll(async () => {
  gw = await startGateway();
  doc = (await gw.api('GET', '/docs/openapi.json')).body;
});
afterAll(async () => {
  await gw.close();
});

const schema = (name: string) => doc.components.schemas[name];
const parameter = (path: string, method: string, name: string) =>
  doc.paths[path][method].parameters.find((p: { name: string }) => p.name === name).schema;
/** The pattern of a documented string, as the server's JavaScript reads it. */
const matches = (pattern: string, value: string) => new RegExp(pattern).test(value);

describe('the OpenAPI document states what the validators enforce', () => {
  it('phone numbers and chat ids have the patterns the server checks', async () => {
    const phone = parameter('/api/checkNumberStatus', 'get', 'phone').pattern;
    expect(matches(phone, '+1 (213) 321-3213')).toBe(true);
    expect(matches(phone, '12345')).toBe(false);
    expect((await gw.api('GET', '/api/checkNumberStatus?phone=12345')).status).toBe(400);

    const sendTextPhone = parameter('/api/sendText', 'get', 'phone').pattern;
    expect(matches(sendTextPhone, '15551234567')).toBe(true);
    expect(matches(sendTextPhone, '123@g.us')).toBe(true);
    expect(matches(sendTextPhone, 'nobody@c.us')).toBe(false);
    expect((await gw.api('GET', '/api/sendText?phone=nobody@c.us&text=hi')).status).toBe(400);

    const messageId = schema('MessageStarRequestInput').properties.messageId;
    expect(matches(messageId.pattern, 'false_15551234567@c.us_AAAAAAAAAAAAAAAAAAAA')).toBe(true);
    expect(matches(messageId.pattern, 'false_someone_AAAA')).toBe(false);
    expect(messageId.description).toContain('chatId');
  });

  it('limit and offset of the history are integers with their bounds (limit 0: no limit of its own, as the peer)', () => {
    for (const path of ['/api/{session}/chats/{chatId}/messages', '/api/messages']) {
      expect(parameter(path, 'get', 'limit')).toMatchObject({ type: 'integer', minimum: 0, maximum: 1000 });
      expect(parameter(path, 'get', 'offset')).toMatchObject({ type: 'integer', minimum: 0 });
    }
  });

  it('poll options and votes are unique items', () => {
    expect(schema('MessagePollInput').properties.options.uniqueItems).toBe(true);
    expect(schema('MessagePollVoteRequestInput').properties.votes.uniqueItems).toBe(true);
  });

  it('a file is url xor data, and a contact card needs a vcard or fullName and phoneNumber', async () => {
    const oneOf = [{ required: ['url'] }, { required: ['data'] }];
    expect(schema('RemoteOrBinaryFileInput').oneOf).toEqual(oneOf);
    expect(schema('LinkPreviewImageInput').oneOf).toEqual(oneOf);
    expect(schema('ContactCardInput').anyOf.map((branch: { required: string[] }) => branch.required)).toEqual([
      ['vcard'],
      ['fullName', 'phoneNumber'],
    ]);
    const both = await gw.api('POST', '/api/sendFile', {
      chatId: '15551234567@c.us',
      file: { mimetype: 'text/plain', url: 'https://example.com/a.txt', data: 'aGk=' },
    });
    expect(both.status).toBe(400);
  });

  it('a button names the field its type needs, and the text of a custom preview must hold its url', () => {
    const rules = schema('ButtonInput').allOf.map((rule: any) => [rule.if.properties.type.const, rule.then.required]);
    expect(rules).toEqual([
      ['url', ['url']],
      ['call', ['phoneNumber']],
      ['copy', ['copyCode']],
    ]);
    expect(schema('MessageLinkCustomPreviewRequestInput').properties.text.description).toContain('preview.url');
  });

  it('an admin key takes no session and no actions', async () => {
    const keys = schema('ApiKeyRequestInput');
    expect(keys.if).toEqual({ required: ['isAdmin'], properties: { isAdmin: { const: true } } });
    expect(keys.then.properties).toEqual({ session: { type: 'null' }, actions: { type: 'null' } });
    expect((await gw.api('POST', '/api/keys', { isAdmin: true, session: 'default' })).status).toBe(400);
  });

  it('the engine enum says which engines this build has: every name of the interface', () => {
    expect(schema('EngineNameInput').description).toMatch(/this build has SANDBOX, NOWEB, WEBJS, GOWS, WPP\./);
  });

  it('the examples of one operation name the same chat', () => {
    const send = schema('MessagePollRequestInput').properties;
    const chat = send.chatId.examples[0];
    expect(send.reply_to.examples[0]).toContain(`_${chat}_`);
    expect(schema('MessageStarRequestInput').properties.messageId.examples[0]).toContain(`_${chat}_`);
  });
});
