import { describe, expect, it } from 'vitest';
import { webhookWants, websocketWants } from '../src/events/names.js';

describe('event filters (spec 2.2 webhooks, 6.1 websocket)', () => {
  it('`*` gives a webhook every event but message.ack.group, which is given by name', () => {
    expect(webhookWants(['*'], 'message.ack')).toBe(true);
    expect(webhookWants(['*'], 'engine.event')).toBe(true);
    expect(webhookWants(['*'], 'message.ack.group')).toBe(false);
    expect(webhookWants(['message.ack.group'], 'message.ack.group')).toBe(true);
    expect(webhookWants(['message.ack.group'], 'message.ack')).toBe(false);
  });

  it('`*` gives a websocket every event but engine.event and message.ack.group, which are given by name', () => {
    expect(websocketWants(['*'], 'message.ack')).toBe(true);
    expect(websocketWants(['*'], 'engine.event')).toBe(false);
    expect(websocketWants(['*'], 'message.ack.group')).toBe(false);
    expect(websocketWants(['*', 'message.ack.group'], 'message.ack.group')).toBe(true);
    expect(websocketWants(['*', 'engine.event'], 'engine.event')).toBe(true);
  });
});
