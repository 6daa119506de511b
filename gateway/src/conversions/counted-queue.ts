import type { GatewayConfig } from '../config.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ConversionQueue, DEFAULT_CONVERSION_QUEUE } from './conversion-queue.js';

/** The media conversion queue of a gateway, as configured, with its running and waiting conversions as gauges in `metrics`. */
export function countedConversionQueue(metrics: GatewayMetrics, config: Pick<GatewayConfig, 'conversions'>): ConversionQueue {
  const queue = new ConversionQueue(config.conversions ?? DEFAULT_CONVERSION_QUEUE);
  metrics.gauge('switchboard_media_conversions_running', 'Media conversions (ffmpeg) running', () => queue.running);
  metrics.gauge('switchboard_media_conversions_waiting', 'Media conversions waiting for one running to finish', () => queue.waiting);
  return queue;
}
