import { collectDefaultMetrics, Registry } from 'prom-client';
import { SendQueueMetrics } from '../sending/queue-metrics.js';

/**
 * An engine pod's Prometheus metrics, served at `/metrics` on its health port: the process's
 * (memory, CPU, event loop per pod) and its session's paced sending, whose queue runs here in
 * cluster mode (the gateway serves the same series in local mode). A registry of its own, so
 * several pods in one process (tests) do not collide.
 */
export class PodMetrics {
  readonly registry = new Registry();
  /** The pacer's observer (SessionSending's). */
  readonly sendQueue = new SendQueueMetrics(this.registry);

  /** `depths`: the session's queue depth, read at each scrape (empty while no queue runs). */
  constructor(depths: () => ReadonlyMap<string, number>, options: { readonly defaultMetrics?: boolean } = {}) {
    this.sendQueue.depths(depths);
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
