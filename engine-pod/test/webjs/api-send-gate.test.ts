import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { ApiSendGate } from '../../src/engines/webjs/api-send-gate.js';

describe('ApiSendGate: source api or app, and message.any before its acks (spec 6.2)', () => {
  it('an echo of the sent message that comes before the send resolves is dropped; its ack follows the api record', async () => {
    const gate = new ApiSendGate();
    const out: string[] = [];
    await gate.send(
      async () => {
        gate.created('k1', () => out.push('app k1'));
        gate.updated('k1', () => out.push('ack k1'));
        return 'k1';
      },
      (key) => key,
      (key) => out.push(`api ${key}`),
    );
    gate.created('k1', () => out.push('app k1 again'));
    expect(out).toEqual(['api k1', 'ack k1']);
  });

  it('a send that hangs holds other own messages for maxHoldMs at most', async () => {
    const gate = new ApiSendGate(20);
    const out: string[] = [];
    void gate.send(
      () => new Promise<string>(() => {}),
      (key) => key,
      () => out.push('never'),
    );
    gate.created('phone', () => out.push('app phone'));
    expect(out).toEqual([]);
    await waitFor(() => out.length > 0, 'the held message');
    expect(out).toEqual(['app phone']);
    gate.close();
  });

  it('a failed send lets go of what it held', async () => {
    const gate = new ApiSendGate();
    const out: string[] = [];
    const failing = gate.send(
      async () => {
        gate.created('phone', () => out.push('app phone'));
        throw new Error('page crashed');
      },
      () => null,
      () => out.push('never'),
    );
    await expect(failing).rejects.toThrow('page crashed');
    gate.created('later', () => out.push('app later'));
    expect(out).toEqual(['app phone', 'app later']);
  });
});
