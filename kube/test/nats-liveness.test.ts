// Engine pods' NATS connections notice a partition the same way (protocol NATS_LIVENESS): the
// Node pod through natsLiveness, the Go pod through constants of its own, held here to the same
// figures so that one cannot drift from the other.
import { readFileSync } from 'node:fs';
import { NATS_LIVENESS } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { natsLiveness } from '../src/pod.js';

const goConnection = readFileSync(new URL('../../engines/gows/internal/natshost/conn.go', import.meta.url), 'utf8');

/** A Go constant of conn.go, `name = <n> * time.Second` in milliseconds or a plain count. */
function goConstant(name: string): number {
  const match = new RegExp(`\\b${name}\\s*=\\s*(\\d+)(\\s*\\*\\s*time\\.Second)?`).exec(goConnection);
  if (!match) throw new Error(`conn.go has no constant ${name}`);
  return Number(match[1]) * (match[2] ? 1000 : 1);
}

describe('NATS liveness', () => {
  it('nats.js gets the protocol figures', () => {
    expect(natsLiveness).toEqual({
      pingInterval: NATS_LIVENESS.pingIntervalMs,
      maxPingOut: NATS_LIVENESS.maxPingOut,
      timeout: NATS_LIVENESS.connectTimeoutMs,
    });
  });

  it('the Go engine pod keeps the same figures', () => {
    expect(goConstant('natsPingInterval')).toBe(NATS_LIVENESS.pingIntervalMs);
    expect(goConstant('natsMaxPingsOut')).toBe(NATS_LIVENESS.maxPingOut);
    expect(goConstant('natsConnectTimeout')).toBe(NATS_LIVENESS.connectTimeoutMs);
  });
});
