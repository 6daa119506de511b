// The per-endpoint circuit on a controlled clock (times in ms): which attempts count as its probe.
import { describe, expect, it } from 'vitest';
import type { DeliveryFailure } from '../../src/webhooks/delivery-failure.js';
import { EndpointCircuits } from '../../src/webhooks/endpoint-circuit.js';

const URL = 'http://receiver.test/hook';
const timeout: DeliveryFailure = { reason: 'timeout', detail: 'no answer within 300 ms' };

describe('endpoint circuit', () => {
  it('lets one probe through at a time, even when an attempt admitted before it opened fails meanwhile', () => {
    const circuits = new EndpointCircuits({ failuresToOpen: 2, openAfterMs: 0, firstProbeMs: 50, maxProbeMs: 100 });
    // Two attempts start while the circuit is closed; the first fails at 300, and a third attempt is
    // admitted in its slot at 302, the very millisecond the second one's failure opens the circuit.
    expect(circuits.admit(URL, 0)).toBe(0);
    expect(circuits.admit(URL, 0)).toBe(0);
    expect(circuits.record(URL, timeout, 0, 300)).toBeNull();
    expect(circuits.admit(URL, 302)).toBe(0);
    expect(circuits.record(URL, timeout, 0, 302)).toBe('opened');
    expect(circuits.admit(URL, 320)).toBeGreaterThan(0);

    // The probe goes at 352 and hangs; the attempt of 302 fails at 602: it was no probe.
    expect(circuits.admit(URL, 352)).toBe(0);
    expect(circuits.record(URL, timeout, 302, 602)).toBeNull();
    expect(circuits.admit(URL, 710), 'a second probe while the first is in flight').toBeGreaterThan(0);

    // The probe fails at 1000: the next one waits twice as long (within the 100-ms bound).
    expect(circuits.record(URL, timeout, 352, 1000)).toBeNull();
    expect(circuits.admit(URL, 1050)).toBe(50);
    expect(circuits.admit(URL, 1100)).toBe(0);
    expect(circuits.isOpen(URL)).toBe(true);

    // Its success closes the circuit.
    expect(circuits.record(URL, null, 1100, 1120)).toBe('closed');
    expect(circuits.admit(URL, 1121)).toBe(0);
    expect(circuits.isOpen(URL)).toBe(false);
  });
});
