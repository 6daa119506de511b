// Recovery's evidence that a send left `sending` went out (src/sending/went-out.ts).
import { ACKS } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { wentOut } from '../../src/sending/went-out.js';

describe('wentOut', () => {
  it('takes a message the server acknowledged, or more, for sent', () => {
    for (const ack of [ACKS.SERVER, ACKS.DEVICE, ACKS.READ, ACKS.PLAYED]) expect(wentOut({ ack }), `ack ${ack}`).toBe(true);
  });

  it('sends again what the history lacks, and what the engine told but nobody acknowledged', () => {
    expect(wentOut(null)).toBe(false);
    expect(wentOut({ ack: ACKS.PENDING })).toBe(false);
    expect(wentOut({ ack: ACKS.ERROR })).toBe(false);
  });
});
