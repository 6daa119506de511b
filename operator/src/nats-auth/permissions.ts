import { INBOX_PREFIXES, KV_BUCKETS, OBJECT_STORES, objectStoreStream, STREAMS, SUBJECTS } from '@switchboard/protocol';

/** What one NATS user may publish and subscribe to (the `nats` claims of its user JWT). */
export interface NatsPermissions {
  readonly pub: { readonly allow: string[] };
  readonly sub: { readonly allow: string[] };
  /** May answer requests it received (once each), whatever their reply subject. */
  readonly resp?: { readonly max: number; readonly ttl: number };
}

const JS = '$JS.API';
const kvStream = (bucket: string) => `KV_${bucket}`;
/** JetStream's direct get with the subject in the request subject, so permissions can name the keys. */
const directGet = (bucket: string, keys: string) => `${JS}.DIRECT.GET.${kvStream(bucket)}.$KV.${bucket}.${keys}`;

/**
 * An engine pod: its own session's subjects and keys only. Every JetStream call it makes names
 * the session in its subject: KV reads are direct gets of one key (the bucket is bound with
 * `allow_direct`, never looked up), writes are publishes to the key's subject, the key listing of
 * a logout is a consumer whose filter is in the create subject (nats-server 2.9 and later), and
 * replies come to the session's own inbox prefix. Stream management (create, update, purge,
 * info) is left to the gateway and operator, which create every stream and bucket before an engine
 * pod runs (`ensureClusterStores`).
 *
 * Object stores are one bucket per session (`OBJECT_STORES`), because an object's subjects name
 * its bucket but not its owner: chunks are `$O.<bucket>.C.<random nuid>` and metadata
 * `$O.<bucket>.M.<base64 of the name>`, so no permission on one shared bucket could tell two
 * sessions' objects apart. Named by bucket, the permissions below are enforced by the server: a
 * pod writes files into its own media bucket only, and reads and deletes only its own session's
 * spilled commands; another session's bucket is a permission violation whatever object it names.
 * Its buckets exist before it runs (the operator's `ensureSessionStores`); the pod binds.
 */
export function enginePermissions(session: string): NatsPermissions {
  const { auth, leases, messages, sendQueues } = KV_BUCKETS;
  const media = OBJECT_STORES.media(session);
  const commands = OBJECT_STORES.commands(session);
  return {
    pub: {
      allow: [
        SUBJECTS.sessionEvents(session),
        `$KV.${auth}.${session}.>`,
        `$KV.${messages}.${session}.>`,
        `$KV.${leases}.${session}`,
        // Paced sending: the session's queue, recent sends and pairing date (send-queue-records.ts).
        `$KV.${sendQueues}.${session}.>`,
        directGet(auth, `${session}.>`),
        directGet(messages, `${session}.>`),
        directGet(leases, session),
        directGet(sendQueues, `${session}.>`),
        // The key listing a logout purges by: an ordered consumer filtered on the session's keys.
        `${JS}.CONSUMER.CREATE.${kvStream(auth)}.*.$KV.${auth}.${session}.>`,
        // Likewise the keys of a chat deleted on the phone, which the history forgets.
        `${JS}.CONSUMER.CREATE.${kvStream(messages)}.*.$KV.${messages}.${session}.>`,
        // And the queue read back when the pod takes the lease.
        `${JS}.CONSUMER.CREATE.${kvStream(sendQueues)}.*.$KV.${sendQueues}.${session}.>`,
        // Account-level JetStream info (usage totals), which a JetStream manager asks for first.
        `${JS}.INFO`,
        `$O.${media}.>`,
        `${JS}.STREAM.INFO.${objectStoreStream(media)}`,
        `${JS}.STREAM.MSG.GET.${objectStoreStream(media)}`,
        `$O.${commands}.M.*`,
        `${JS}.STREAM.INFO.${objectStoreStream(commands)}`,
        `${JS}.STREAM.MSG.GET.${objectStoreStream(commands)}`,
        `${JS}.CONSUMER.CREATE.${objectStoreStream(commands)}`,
        // An object read finds its stream by subject first: stream names only, nothing in them
        // (a session's buckets are named by a hash of its name, so the list names no session).
        `${JS}.STREAM.NAMES`,
        `${JS}.STREAM.PURGE.${objectStoreStream(commands)}`,
        // A file that fails while it is written (over the media limit) has its chunks purged; the
        // bucket is the session's own, which the pod may already write.
        `${JS}.STREAM.PURGE.${objectStoreStream(media)}`,
      ],
    },
    sub: { allow: [SUBJECTS.command(session), `${INBOX_PREFIXES.engine(session)}.>`] },
    // Answers to the gateway's and operator's commands go to their inboxes: once per request.
    resp: { max: 1, ttl: 0 },
  };
}

/**
 * The gateway: commands to every session, the events, dead-letter and replay streams and their
 * consumers, the API keys, every session's media and command buckets, the history it reads and the
 * auth state it purges, reads for a backup and writes back in a restore (`POST /api/admin/restore`:
 * the pairings go in before the engine pods that use them start). JetStream's API as a whole: it
 * creates, updates and deletes those streams and consumers.
 */
export function gatewayPermissions(): NatsPermissions {
  return {
    pub: {
      allow: [
        SUBJECTS.command('*'),
        'sb.dead.>',
        'sb.replay.>',
        `${JS}.>`,
        '$JS.ACK.>',
        '$JS.FC.>',
        `$KV.${KV_BUCKETS.apiKeys}.>`,
        `$KV.${KV_BUCKETS.auth}.>`,
        `$KV.${KV_BUCKETS.webhookStates}.>`,
        // Every session's media and command buckets (`sb_media_<token>`, `sb_commands_<token>`).
        '$O.>',
      ],
    },
    sub: { allow: [`${INBOX_PREFIXES.gateway}.>`] },
  };
}

/**
 * The operator: host commands to engine pods, the status events it writes into resources, the
 * purge of a session's auth state on logout, and creating the streams and buckets engine pods use
 * and raising any stream's replicas.
 * Each session's object store buckets are named by a hash, which no wildcard can match as part of
 * a token: the operator may look up, create and delete any stream (it makes a session's buckets
 * before its pod and deletes them when the session is deleted; it holds the account's signing key
 * anyway, so this widens nothing it could not grant itself).
 */
export function operatorPermissions(): NatsPermissions {
  const streams = [STREAMS.events, ...Object.values(KV_BUCKETS).map(kvStream)];
  return {
    pub: {
      allow: [
        SUBJECTS.command('*'),
        `${JS}.INFO`,
        ...streams.flatMap((stream) => [`${JS}.STREAM.CREATE.${stream}`, `${JS}.STREAM.UPDATE.${stream}`, `${JS}.STREAM.INFO.${stream}`]),
        `${JS}.STREAM.PURGE.${kvStream(KV_BUCKETS.auth)}`,
        `${JS}.STREAM.CREATE.*`,
        `${JS}.STREAM.INFO.*`,
        `${JS}.STREAM.DELETE.*`,
        // Raising every stream of the product to the replicas asked for (raiseReplicas, at start).
        `${JS}.STREAM.LIST`,
        `${JS}.STREAM.UPDATE.*`,
      ],
    },
    sub: { allow: [SUBJECTS.statusEvents, `${INBOX_PREFIXES.operator}.>`] },
  };
}
