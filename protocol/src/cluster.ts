import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppConfig } from './apps.js';
import { BuiltEngineName } from './engine-catalog.js';
import { ClientVersion, EngineVersions } from './engine-versions.js';
import { SessionName } from './ids.js';
import { ResourceSessionConfig } from './resource-webhook.js';
import { MeInfo } from './session.js';
import { SessionStatus, SessionStatusPoint } from './status.js';

/**
 * Cluster-mode contracts: the MessagingSession resource, NATS subjects and KV buckets. Every
 * part (gateway, operator, engine pod) takes these names from here, never from a literal.
 */
export const MESSAGING_SESSION = {
  group: 'switchboard.dev',
  version: 'v1alpha1',
  kind: 'MessagingSession',
  plural: 'messagingsessions',
  singular: 'messagingsession',
  shortName: 'msess',
} as const;

/** Annotations and the finalizer the gateway and operator agree on. */
export const ANNOTATIONS = {
  /** Set by the API before a delete: the finalizer logs the account out before letting go. */
  logoutOnDelete: 'switchboard.dev/logout-on-delete',
  /** Changed by the API's restart: the operator replaces the engine pod when it differs. */
  restartedAt: 'switchboard.dev/restarted-at',
  /** Copied onto the engine pod, so a restart request is seen as handled. */
  podRestartedAt: 'switchboard.dev/restarted-at',
  /**
   * The resourceVersion of the session's webhook Secret the gateway wrote with this spec: a new
   * value changes the resource, so every gateway replica reads the Secret again.
   */
  webhookSecretVersion: 'switchboard.dev/webhook-secret-version',
} as const;
export const LOGOUT_FINALIZER = 'switchboard.dev/logout';

/** Labels on engine pods, so informers can select them, and on Secrets. */
export const LABELS = {
  app: 'app.kubernetes.io/name',
  component: 'app.kubernetes.io/component',
  session: 'switchboard.dev/session',
  /**
   * `"true"` on a Secret lets webhooks read it. The gateway may read any Secret of its namespace
   * by name; without this opt-in, whoever may write a MessagingSession could have any of them
   * (the admin key, Helm's release records) sent to a url of theirs as a header.
   */
  webhookSecrets: 'switchboard.dev/webhook-secrets',
} as const;

export const DesiredState = z.enum(['Running', 'Stopped']).meta({ id: 'DesiredState' });
export type DesiredState = z.infer<typeof DesiredState>;

/**
 * A session pinned to one engine version (issue 31): its pod runs this image and presents this
 * client version whatever the release says, and rollouts never touch it. The whole version is
 * pinned, so a pinned session changes only when its pin does.
 */
export const EngineVersionPin = z
  .strictObject({
    image: z.string().min(1).max(1024).meta({
      description: "The engine pod's image, e.g. registry.example/switchboard-engine-socket:1.4.0",
    }),
    clientVersion: ClientVersion.optional().meta({
      description:
        "Socket engines (NOWEB, GOWS): the client version the pod is given (SWITCHBOARD_<ENGINE>_CLIENT_VERSION); unset: the library's. A session's config.clientVersion still wins inside the engine",
    }),
  })
  .meta({
    id: 'EngineVersionPin',
    description: 'Pins the session to this engine version: engine version rollouts leave it alone (docs/operations.md, "Rollouts")',
  });
export type EngineVersionPin = z.infer<typeof EngineVersionPin>;

export const MessagingSessionSpec = z
  .object({
    session: SessionName.optional().meta({
      description: 'Session name when it differs from metadata.name (names Kubernetes cannot hold)',
    }),
    engine: BuiltEngineName,
    desiredState: DesiredState.default('Running'),
    config: ResourceSessionConfig.default({}),
    apps: z.array(AppConfig).max(10).default([]),
    engineVersion: EngineVersionPin.optional(),
  })
  .meta({ id: 'MessagingSessionSpec' });
export type MessagingSessionSpec = z.infer<typeof MessagingSessionSpec>;

/** What `metav1.Condition` allows, as Kubernetes declares it (apimachinery's types.go). */
const CONDITION_TYPE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const CONDITION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
/** The longest condition message, and the longest `status.reason` (the same kind of text). */
export const CONDITION_MESSAGE_MAX = 32768;

/** A Kubernetes object's `metadata.generation`: an int64 that starts at 1. */
const Generation = z.number().int().min(0).meta({ format: 'int64' });

/**
 * One condition of the status, the standard `metav1.Condition`: tools that read conditions
 * (`kubectl wait --for=condition=Ready`, alerting on `Degraded`) find the shape they know.
 */
export const Condition = z
  .object({
    type: z
      .string()
      .max(316, { abort: true })
      .regex(CONDITION_TYPE, { message: 'must be a condition type (CamelCase, optionally prefixed by a DNS subdomain and "/")' }),
    status: z.enum(['True', 'False', 'Unknown']),
    observedGeneration: Generation.optional().meta({ description: 'The metadata.generation the condition was computed from' }),
    lastTransitionTime: z.iso.datetime({ offset: true }).meta({ description: 'When the status last changed' }),
    reason: z
      .string()
      .min(1)
      .max(1024, { abort: true })
      .regex(CONDITION_REASON, { message: 'must be a CamelCase reason: letters, digits, "_", "," or ":", starting with a letter' }),
    message: z.string().max(CONDITION_MESSAGE_MAX),
  })
  .meta({ id: 'Condition' });
export type Condition = z.infer<typeof Condition>;

/**
 * The conditions the operator sets on every MessagingSession (docs/operations.md, "Conditions"):
 * what a platform team alerts on. `Ready` is True exactly when the session is WORKING.
 */
export const CONDITION_TYPES = {
  ready: 'Ready',
  paired: 'Paired',
  engineConnected: 'EngineConnected',
  degraded: 'Degraded',
  podReady: 'PodReady',
} as const;

/**
 * `versions` as the resource holds it. The operator writes its status as a merge patch, where a
 * null removes the member: a `client` of null (SANDBOX presents none) is stored as no `client`,
 * so the schema may not require it; readers take a missing one as null.
 */
const ResourceEngineVersions = EngineVersions.extend({ client: EngineVersions.shape.client.optional() });

export const MessagingSessionStatus = z
  .object({
    status: SessionStatus,
    statuses: z.array(SessionStatusPoint).max(3),
    me: MeInfo.nullable(),
    /** Only with FAILED: why (the engine's `session.status` reason, or the operator's own). */
    reason: z.string().max(CONDITION_MESSAGE_MAX).nullable(),
    podName: z.string().max(253).nullable(),
    versions: ResourceEngineVersions.nullable().meta({
      description: "What the session's engine pod runs: its image, and what its engine reported (library, client version); null until it has",
    }),
    observedGeneration: Generation.meta({ description: 'The metadata.generation this status was computed from' }),
    conditions: z.array(Condition).meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  })
  .partial()
  .meta({ id: 'MessagingSessionStatus' });
export type MessagingSessionStatus = z.infer<typeof MessagingSessionStatus>;

/** The longest MessagingSession name: its engine pod's session label holds 63 characters. */
export const RESOURCE_NAME_MAX = 63;

/**
 * Why a MessagingSession cannot run under this name, or null. The name is its engine pod's
 * session label (63 characters at most) and, without `spec.session`, the session's name, which
 * is a NATS subject token (no dots). The CRD refuses such a name when a resource is created; the
 * operator refuses a resource made before that rule.
 */
export function resourceNameProblem(name: string, hasSessionName: boolean): string | null {
  if (name.length > RESOURCE_NAME_MAX) return `metadata.name must be at most ${RESOURCE_NAME_MAX} characters`;
  if (!hasSessionName && name.includes('.')) return 'metadata.name must not contain "." unless spec.session names the session';
  return null;
}

/**
 * Session names allow upper case and `_`, Kubernetes object names do not. A name that is
 * already a valid object name is used as it is (what a user writes in a manifest); any other
 * gets a stable hashed name and keeps its real name in `spec.session`.
 */
export function resourceNameFor(session: string): string {
  if (OBJECT_NAME_SESSION.test(session)) return session;
  return `s-${createHash('sha256').update(session).digest('hex').slice(0, HASHED_NAME_HEX)}`;
}

/** A session name that is a valid object name as it is: its resource has the same name. */
const OBJECT_NAME_SESSION = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const HASHED_NAME_HEX = 16;

/**
 * The CEL forms of `resourceNameFor`, for the CRD's rule: CEL has no hash, so the API server
 * checks that a `spec.session` Kubernetes could hold is the name itself and any other has a
 * hashed name; the operator checks the hash itself (`sessionNameProblem`).
 */
export const RESOURCE_NAME_PATTERNS = {
  sameAsSession: OBJECT_NAME_SESSION.source,
  hashed: `^s-[0-9a-f]{${HASHED_NAME_HEX}}$`,
} as const;

/**
 * Why this resource may not speak for the session its `spec.session` names, or null. The session
 * name decides its NATS credentials, subjects and stores, so a resource `x` with `spec.session:
 * alpha` would get alpha's credentials and, deleted, drop alpha's stores: `spec.session` must be
 * the session whose resource name (`resourceNameFor`) is this one.
 */
export function sessionNameProblem(resourceName: string, specSession: string | undefined): string | null {
  if (specSession === undefined || specSession === '') return null;
  const expected = resourceNameFor(specSession);
  if (expected === resourceName) return null;
  return `spec.session "${specSession}" is not this resource's session: the MessagingSession of session "${specSession}" is named "${expected}"; leave spec.session out to run the session "${resourceName}"`;
}

/** The one engine pod a session may have: a deterministic name is what keeps it one. */
export function enginePodName(resourceName: string): string {
  const name = `engine-${resourceName}`;
  return name.length <= 63 ? name : `engine-${createHash('sha256').update(resourceName).digest('hex').slice(0, 20)}`;
}

/**
 * The Secret the gateway keeps a session's webhook secrets in (`hmac.key`, custom header values
 * sent through the API), owned by the resource so that it goes with it.
 */
export function webhookSecretName(resourceName: string): string {
  return `${resourceName}-webhook-secrets`;
}

/** NATS subjects. Session names are valid subject tokens (no `.`, `*`, `>` or spaces). */
export const SUBJECTS = {
  /** Request/reply: one engine pod answers the session's commands. */
  command: (session: string) => `sb.cmd.${session}`,
  /** Events: `sb.evt.<session>.<event name, its dots as tokens>`. */
  event: (session: string, event: string) => `sb.evt.${session}.${event}`,
  allEvents: 'sb.evt.>',
  sessionEvents: (session: string) => `sb.evt.${session}.>`,
  statusEvents: 'sb.evt.*.session.status',
} as const;

const EVENT_SUBJECT_PREFIX = 'sb.evt.';

/** The session an event subject names (`sb.evt.<session>.…`); null for any other subject. */
export function eventSubjectSession(subject: string): string | null {
  if (!subject.startsWith(EVENT_SUBJECT_PREFIX)) return null;
  const end = subject.indexOf('.', EVENT_SUBJECT_PREFIX.length);
  return end > EVENT_SUBJECT_PREFIX.length ? subject.slice(EVENT_SUBJECT_PREFIX.length, end) : null;
}

/**
 * Whether an event's body names the session its subject does. NATS permissions restrict only
 * the subject an engine pod publishes on (its own session's), never what the body says, so every
 * reader of the events drops an event that fails this: else one session's pod could speak for
 * another (its /ws clients, its webhooks, its status).
 */
export function eventMatchesSubject(subject: string, claimedSession: string): boolean {
  return eventSubjectSession(subject) === claimedSession;
}

/**
 * Reply subjects of each component's requests (and deliveries of its consumers). With NATS
 * authentication a user may subscribe to its own prefix only, so one engine pod cannot read the
 * replies meant for another (docs/architecture.md, "NATS authentication").
 */
export const INBOX_PREFIXES = {
  gateway: '_INBOX.gateway',
  operator: '_INBOX.operator',
  engine: (session: string) => `_INBOX.engine.${session}`,
} as const;

/**
 * How an engine pod's NATS connection tells a stalled connection (a partition: packets dropped,
 * no reset) from a quiet one: a ping every 5 s, the connection given up after 3 unanswered (15-20
 * s), each reconnect attempt bounded by 5 s. With the clients' defaults (2 minutes between pings;
 * 20 s to connect in nats.js) a pod stayed on the dead connection after the partition had healed,
 * until TCP's retransmission back-off let a packet through (23 s after a 30-s cut on the real
 * node), and its session with it; with these it reconnects within a second or two of the heal.
 * engines/gows/internal/natshost/conn.go keeps the same figures. Engine pods only: a gateway given
 * these reconnected during its own 30-s cut, and afterwards (not understood yet) webhook events
 * of other sessions were delivered again, by the same id, 34 to 2,430 times in the next fault's
 * window on the real node, against 0 or 1 with the defaults; a gateway's stall is bounded by the
 * webhook queues' ack wait anyway.
 */
export const NATS_LIVENESS = { pingIntervalMs: 5_000, maxPingOut: 3, connectTimeoutMs: 5_000 } as const;

export const STREAMS = { events: 'SB_EVENTS' } as const;

export const KV_BUCKETS = {
  /** Engine auth state: key `<session>.<type>.<id>` (type and id encoded to subject-safe tokens). */
  auth: 'sb_auth',
  /** One lease per session, held by the engine pod that may connect: key `<session>`. */
  leases: 'sb_leases',
  /**
   * Message history, written by each session's engine pod and read by every gateway replica:
   * key `<session>.<chat>.<message>` (chat and message id in base64url) holds a message record;
   * `<session>.<chat>` holds the chat's other address (`@lid` or `@c.us`) when one is known.
   */
  messages: 'sb_messages',
  /**
   * API keys every gateway replica shares (hashes only): key `key.<id>` for admin and general
   * keys, `<kind>.<session>` for the one media or control key of a session.
   */
  apiKeys: 'sb_api_keys',
  /**
   * Webhooks their receiver disabled with a 410 Gone, shared by every gateway replica: key
   * `<session>.<first 128 bits of the SHA-256 of the url, hex>` holds `{ url, disabledAt }`.
   */
  webhookStates: 'sb_webhook_states',
  /**
   * Paced sending in cluster mode: each session's send queue, recent sends and pairing date,
   * written by the session's engine pod while it holds the lease. Keys and records:
   * send-queue-records.ts (`SEND_QUEUE_KEYS`).
   */
  sendQueues: 'sb_send_queues',
} as const;

/**
 * The token that names a session's object stores: the first 128 bits of the SHA-256 of its name,
 * in hex. Safe in a bucket, stream and subject name whatever the session is called, and stable,
 * so every part finds the same buckets. A hash rather than the name itself: an engine pod may list
 * stream names (an object read looks its stream up by subject), and that list should not be a
 * list of every session.
 */
export function sessionStoreToken(session: string): string {
  return createHash('sha256').update(session).digest('hex').slice(0, 32);
}

/**
 * Object stores, one bucket of each per session: NATS permissions can only name subjects, and an
 * object's subjects name its bucket but not its object (chunks are `$O.<bucket>.C.<nuid>`), so a
 * bucket per session is what lets an engine pod's user reach its own session's objects and no
 * other's (docs/architecture.md, "NATS authentication").
 */
export const OBJECT_STORES = {
  /**
   * Media files, written by the session's engine pod and served by the gateways: object
   * `<session>/<id>`. The bucket's TTL is the media lifetime (the gateway's
   * SWITCHBOARD_MEDIA_LIFETIME_SECONDS).
   */
  media: (session: string) => `sb_media_${sessionStoreToken(session)}`,
  /**
   * Commands larger than one NATS message (base64 files): the gateway puts the command's JSON here
   * as `<session>/<random id>` and sends the request with `COMMAND_OBJECT_HEADER` naming it and
   * no body; the engine pod reads it, deletes it, and runs it. The TTL removes what no pod took.
   */
  commands: (session: string) => `sb_commands_${sessionStoreToken(session)}`,
} as const;

/** The JetStream stream behind an object store bucket (nats.js naming). */
export const objectStoreStream = (bucket: string) => `OBJ_${bucket}`;

/** NATS header of a command request whose JSON is in `OBJECT_STORES.commands`: the object's name. */
export const COMMAND_OBJECT_HEADER = 'Sb-Command-Object';

/** How long a spilled command waits in `OBJECT_STORES.commands` for its engine pod. */
export const COMMAND_OBJECT_TTL_MS = 10 * 60 * 1000;

/** Lease timing, the client-go defaults: 15 s lease, renewed well before it lapses. */
export const LEASE = { ttlMs: 15_000, renewMs: 5_000 } as const;
