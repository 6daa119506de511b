import { INBOX_PREFIXES, KV_BUCKETS, OBJECT_STORES, STREAMS, SUBJECTS } from '@switchboard/protocol';

/** What one NATS user may publish and subscribe to (the `nats` claims of its user JWT). */
export interface NatsPermissions {
  readonly pub: { readonly allow: string[] };
  readonly sub: { readonly allow: string[] };
  /** May answer requests it received (once each), whatever their reply subject. */
  readonly resp?: { readonly max: number; readonly ttl: number };
}

const JS = '$JS.API';
const kvStream = (bucket: string) => `KV_${bucket}`;
const objectStream = (store: string) => `OBJ_${store}`;
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
 * The object stores are the exception: an object's subjects are a base64 of its whole name and a
 * random id, so no subject says which session it belongs to. Engine pods may write `sb_media`
 * and read and delete `sb_commands` objects by name (128 and 122 random bits); what that leaves
 * open is in docs/architecture.md, "NATS authentication".
 */
export function enginePermissions(session: string): NatsPermissions {
  const { auth, leases, messages } = KV_BUCKETS;
  const { media, commands } = OBJECT_STORES;
  return {
    pub: {
      allow: [
        SUBJECTS.sessionEvents(session),
        `$KV.${auth}.${session}.>`,
        `$KV.${messages}.${session}.>`,
        `$KV.${leases}.${session}`,
        directGet(auth, `${session}.>`),
        directGet(messages, `${session}.>`),
        directGet(leases, session),
        // The key listing a logout purges by: an ordered consumer filtered on the session's keys.
        `${JS}.CONSUMER.CREATE.${kvStream(auth)}.*.$KV.${auth}.${session}.>`,
        // Account-level JetStream info (usage totals), which a JetStream manager asks for first.
        `${JS}.INFO`,
        `$O.${media}.>`,
        `${JS}.STREAM.INFO.${objectStream(media)}`,
        `${JS}.STREAM.MSG.GET.${objectStream(media)}`,
        `$O.${commands}.M.*`,
        `${JS}.STREAM.INFO.${objectStream(commands)}`,
        `${JS}.STREAM.MSG.GET.${objectStream(commands)}`,
        `${JS}.CONSUMER.CREATE.${objectStream(commands)}`,
        // An object read finds its stream by subject first: stream names only, nothing in them.
        `${JS}.STREAM.NAMES`,
        `${JS}.STREAM.PURGE.${objectStream(commands)}`,
      ],
    },
    sub: { allow: [SUBJECTS.command(session), `${INBOX_PREFIXES.engine(session)}.>`] },
    // Answers to the gateway's and operator's commands go to their inboxes: once per request.
    resp: { max: 1, ttl: 0 },
  };
}

/**
 * The gateway: commands to every session, the events, dead-letter and replay streams and their
 * consumers, the API keys, media and command buckets, the history it reads and the auth state it
 * purges. JetStream's API as a whole: it creates and updates those streams and consumers.
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
        `$O.${OBJECT_STORES.media}.>`,
        `$O.${OBJECT_STORES.commands}.>`,
      ],
    },
    sub: { allow: [`${INBOX_PREFIXES.gateway}.>`] },
  };
}

/**
 * The operator: host commands to engine pods, the status events it writes into resources, the
 * purge of a session's auth state on logout, and creating the streams and buckets engine pods use.
 */
export function operatorPermissions(): NatsPermissions {
  const streams = [STREAMS.events, ...Object.values(KV_BUCKETS).map(kvStream), ...Object.values(OBJECT_STORES).map(objectStream)];
  return {
    pub: {
      allow: [
        SUBJECTS.command('*'),
        `${JS}.INFO`,
        ...streams.flatMap((stream) => [`${JS}.STREAM.CREATE.${stream}`, `${JS}.STREAM.UPDATE.${stream}`, `${JS}.STREAM.INFO.${stream}`]),
        `${JS}.STREAM.PURGE.${kvStream(KV_BUCKETS.auth)}`,
      ],
    },
    sub: { allow: [SUBJECTS.statusEvents, `${INBOX_PREFIXES.operator}.>`] },
  };
}
