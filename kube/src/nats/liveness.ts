import { NATS_LIVENESS } from '@switchboard/protocol';
import type { ConnectionOptions } from 'nats';

/**
 * The connection options an engine pod's NATS connection takes: NATS_LIVENESS, in nats.js's
 * names, so a partition is noticed and left within seconds of healing rather than when TCP's
 * retransmission back-off lets a packet through.
 */
export const natsLiveness: Pick<ConnectionOptions, 'pingInterval' | 'maxPingOut' | 'timeout'> = {
  pingInterval: NATS_LIVENESS.pingIntervalMs,
  maxPingOut: NATS_LIVENESS.maxPingOut,
  timeout: NATS_LIVENESS.connectTimeoutMs,
};
