import type { NatsConnection } from 'nats';
import { openCommandObjects } from './command-objects.js';
import { ensureEventStream } from './event-publisher.js';
import { openAuthBucket } from './nats-auth-state-store.js';
import { NatsMediaStore } from './nats-media-store.js';
import { openMessagesBucket } from './nats-message-store.js';
import { openLeaseBucket } from './session-lease.js';

/**
 * Creates every stream and bucket an engine pod uses, with the settings it would create them
 * with. The operator calls this before it runs any engine pod: pods that connect with NATS
 * credentials only bind (`StoreOptions.bind`), because their permissions stop at their session's
 * keys and creating a stream is not one of them.
 */
export async function ensureClusterStores(nc: NatsConnection): Promise<void> {
  await ensureEventStream(nc);
  await openAuthBucket(nc);
  await openMessagesBucket(nc);
  await openLeaseBucket(nc);
  // Created with the default lifetime when missing; the gateway brings the TTL to its own.
  await NatsMediaStore.open(nc);
  await openCommandObjects(nc);
}
