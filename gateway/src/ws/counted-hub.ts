import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { WsHub } from './hub.js';

/** The `/ws` hub of a gateway, as configured, its clients and the ones it drops counted in `metrics`. */
export function countedWsHub(
  metrics: GatewayMetrics,
  bus: EventBus,
  log: Logger,
  config: Pick<GatewayConfig, 'wsPingMs' | 'wsMaxBufferedBytes' | 'wsMaxConnectionsPerKey'>,
): WsHub {
  const hub = new WsHub({
    bus,
    log,
    heartbeatMs: config.wsPingMs,
    maxBufferedBytes: config.wsMaxBufferedBytes,
    maxConnectionsPerKey: config.wsMaxConnectionsPerKey,
    onDrop: (reason) => metrics.droppedWsClient(reason),
    onSent: (session, lagMs) => metrics.sentToWs(session, lagMs),
  });
  metrics.gauge('switchboard_ws_clients', 'Websocket clients connected', () => hub.size);
  return hub;
}
