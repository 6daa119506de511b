import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  EVENT_ENVELOPES,
  EVENT_NAMES,
  EVENT_PAYLOADS,
  EVENT_SUMMARIES,
  labelColorHex,
  parseMessageId,
  SimulateRequest,
  webhookSchemaId,
} from '../src/index.js';
import * as ex from './event-payload-examples.js';

const envelope = (event: string, payload: unknown) => ({
  id: 'evt_01jabcdefghjkmnpqrstvwxyz0',
  timestamp: 1_795_000_000_000,
  event,
  session: 'default',
  metadata: {},
  payload,
  environment: { tier: 'CORE', version: 'test', engine: 'SANDBOX', platform: 'linux/x64', worker: { id: 'gateway-0' } },
  engine: 'SANDBOX',
});

describe('2.4 one envelope schema per event, built once', () => {
  it('has one per event name, named Webhook<Event> in the OpenAPI components', () => {
    expect(Object.keys(EVENT_ENVELOPES).sort()).toEqual([...EVENT_NAMES].sort());
    expect(webhookSchemaId('session.status')).toBe('WebhookSessionStatus');
    expect(webhookSchemaId('group.v2.participants')).toBe('WebhookGroupV2Participants');
    for (const name of EVENT_NAMES) {
      expect(z.globalRegistry.get(EVENT_ENVELOPES[name])?.id).toBe(webhookSchemaId(name));
      expect(EVENT_SUMMARIES[name].length, name).toBeGreaterThan(10);
    }
    expect(new Set(EVENT_NAMES.map(webhookSchemaId)).size).toBe(EVENT_NAMES.length);
  });

  it("checks the event's own payload and its name", () => {
    expect(EVENT_ENVELOPES['message.ack'].safeParse(envelope('message.ack', ex.groupAck())).success).toBe(true);
    expect(EVENT_ENVELOPES['message.ack'].safeParse(envelope('message.any', ex.groupAck())).success).toBe(false);
    expect(EVENT_ENVELOPES.message.safeParse(envelope('message', ex.groupAck())).success).toBe(false);
    expect(EVENT_ENVELOPES['state.change'].safeParse(envelope('state.change', { state: 'CONFLICT', extra: 1 })).success).toBe(true);
  });
});

describe('6.2 message.ack: participant only in group chats', () => {
  it('rejects a participant on a direct chat', () => {
    const direct = { ...ex.groupAck(), id: 'true_15551234567@c.us_3EB0AB12CD34EF56', from: '15551234567@c.us' };
    const result = EVENT_PAYLOADS['message.ack'].safeParse(direct);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['participant']);
    expect(EVENT_PAYLOADS['message.ack'].safeParse({ ...direct, participant: null }).success).toBe(true);
  });
});

describe('2.5 message ids and 2.9 label colours', () => {
  it('reads {fromMe}_{chatId}_{messageId}[_{participant}]', () => {
    expect(parseMessageId('false_120363000000000001@g.us_3EB0AB_245120000000099@lid')).toEqual({
      fromMe: false,
      chatId: '120363000000000001@g.us',
      id: '3EB0AB',
      participant: '245120000000099@lid',
    });
    expect(parseMessageId('true_15551234567@c.us_ABC')).toEqual({ fromMe: true, chatId: '15551234567@c.us', id: 'ABC', participant: null });
    expect(parseMessageId('ABC')).toBeNull();
  });

  it('maps a colour index to the palette, wrapping around', () => {
    expect(labelColorHex(0)).toBe('#ff9484');
    expect(labelColorHex(1)).toBe('#64c4ff');
    expect(labelColorHex(20)).toBe(labelColorHex(0));
  });
});

describe('SANDBOX simulate kinds for the events', () => {
  const issuesOf = (body: unknown) => SimulateRequest.safeParse(body).error?.issues.map((issue) => issue.path.join('.')) ?? [];

  it('accepts each kind with its defaults', () => {
    const parsed = SimulateRequest.parse({ kind: 'call', from: '15551234567@c.us' });
    expect(parsed).toEqual({ kind: 'call', status: 'offer', from: '15551234567@c.us', isVideo: false });
    expect(SimulateRequest.parse({ kind: 'archive', chatId: '15551234567@c.us' })).toEqual({
      kind: 'archive',
      chatId: '15551234567@c.us',
      archived: true,
    });
  });

  it('names the field a kind needs', () => {
    expect(issuesOf({ kind: 'call' })).toEqual(['from']);
    expect(issuesOf({ kind: 'call', status: 'accept' })).toEqual(['id']);
    expect(issuesOf({ kind: 'label' })).toEqual(['name']);
    expect(issuesOf({ kind: 'label', deleted: true })).toEqual(['id']);
    expect(issuesOf({ kind: 'group-update', groupId: '120363000000000001@g.us' })).toEqual(['']);
    expect(issuesOf({ kind: 'reaction', messageId: 'ABC', text: '👍' })).toEqual(['messageId']);
    expect(issuesOf({ kind: 'ack', messageId: 'true_15551234567@c.us_ABC', ack: 'PENDING' })).toEqual(['ack']);
    expect(issuesOf({ kind: 'presence', chatId: '15551234567@c.us', presence: 'away' })).toEqual(['presence']);
  });
});
