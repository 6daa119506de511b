import { z } from 'zod';
import type { AppConfig } from './apps.js';
import { EngineCommand, type EngineOp } from './commands.js';
import { OPERATIONS, type OperationFacts } from './engine-operations.js';
import type { EngineSettings } from './engine-settings.js';
import { BUILT_ENGINES, type BuiltEngine, type EngineName } from './engines.js';
import type { EventName } from './events/names.js';
import { EVENT_NAMES } from './events/names.js';

/**
 * What each engine this build has can do (BUILT_ENGINES, engines.ts): the one table the rest is
 * made from. The gateway refuses an operation or a setting an engine lacks (422) before anything
 * travels, the operator picks each engine pod's image from it, the CRD's `spec.engine` enum and
 * the OpenAPI document list its engines, `GET /api/server/engines` serves it, the operator sizes
 * each engine's pods from it and the chart's copy of those sizes is written from it. Adding an
 * engine to BUILT_ENGINES makes this table fail to compile until it says what the engine does;
 * the engine itself is its folder (engine-pod/src/engines/<engine>/, docs/architecture.md).
 */

/** The built engines as plain engine names, for messages and `details.available`. */
export const AVAILABLE_ENGINES: readonly EngineName[] = BUILT_ENGINES;

export function isBuiltEngine(engine: string): engine is BuiltEngine {
  return (BUILT_ENGINES as readonly string[]).includes(engine);
}

/** The engines a MessagingSession may name: only those this build has (the CRD's enum). */
export const BuiltEngineName = z.enum(BUILT_ENGINES).meta({
  id: 'BuiltEngineName',
  description: `An engine this build has: ${BUILT_ENGINES.join(', ')}`,
});

/**
 * Which image an engine pod runs: `socket` speaks to the messaging service itself (small, no
 * browser), `browser` drives a browser (Chromium in the image), `gows` is the Go engine's static
 * binary alone (`switchboard-gows nats`, engines/gows/internal/natshost/), no Node.
 */
export const EngineImageKind = z.enum(['socket', 'browser', 'gows']).meta({ id: 'EngineImageKind' });
export type EngineImageKind = z.infer<typeof EngineImageKind>;

/** How an account is paired: a QR code, a code typed on the phone, a passkey (spec 4.1). */
export const PairingMethod = z.enum(['qr', 'code', 'passkey']).meta({ id: 'PairingMethod' });
export type PairingMethod = z.infer<typeof PairingMethod>;

/** Every engine command op, in the order of the contract (protocol/src/commands/). */
export const ENGINE_OPS: readonly EngineOp[] = EngineCommand.options.map((option) => option.shape.op.value);

/** Whether `op` may make events, so that it must wait for them to be stored (engine-operations.ts). */
export function makesEvents(op: EngineOp): boolean {
  const facts: OperationFacts = OPERATIONS[op];
  return facts.reads !== true;
}

const MEDIA_NAMES = { image: 'images', file: 'files', voice: 'voice messages', video: 'videos' } as const;
const STATUS_NAMES = { image: 'image statuses', voice: 'voice statuses', video: 'video statuses' } as const;

/** What a refusal of `command` calls it (a media send by its kind: "sending voice messages"). */
export function operationName(command: EngineCommand): string {
  if (command.op === 'send.media') return `sending ${MEDIA_NAMES[command.args.kind]}`;
  if (command.op === 'status.media') return STATUS_NAMES[command.args.kind];
  return OPERATIONS[command.op].name;
}

/**
 * An argument an engine refuses in an op it otherwise carries out: set (not null, false or
 * empty), the op answers 422 NOT_SUPPORTED, as an op the engine lacks does.
 */
export interface RefusedArgument {
  readonly op: EngineOp;
  /** The member of the command's args (the request body's field of the same name). */
  readonly field: string;
  /** What a request setting it asks for: "engine WEBJS does not support <this>". */
  readonly what: string;
}

/**
 * An engine pod's default size (cluster mode), from the pods' measured memory (`node bench/dist/all.js
 * engine-pods`; docs/operations.md, "Sizing engine pods"): the memory request about the idle pod's
 * resident set, the limit its busy peak with room to grow. Engines get no CPU limit: throttling
 * stalls their connection. The operator sets these unless a release overrides them (its
 * `SWITCHBOARD_ENGINE_RESOURCES`, the chart's `engines.resources`, generated from this).
 */
export interface EnginePodSize {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly memory: string };
  /**
   * The share of the memory limit the pod's Node process's old generation may grow to
   * (`--max-old-space-size`): the rest is code, the young generation, buffers and whatever else
   * runs in the pod (the Go child, Chromium).
   */
  readonly heapShare: number;
  /** What runs in the pod, in a few words: the chart's comment on these values. */
  readonly holds: string;
}

/** What one engine does; `GET /api/server/engines` answers these (all but `pod`). */
export interface EngineCapabilities {
  /** The engine pod's image (cluster mode). */
  readonly image: EngineImageKind;
  /** The engine pod's default size (cluster mode). */
  readonly pod: EnginePodSize;
  readonly description: string;
  readonly pairing: readonly PairingMethod[];
  /** The engine command ops it carries out; any other answers 422 NOT_SUPPORTED. */
  readonly operations: readonly EngineOp[];
  /** The events it can emit (`session.status` from every engine's host). */
  readonly events: readonly EventName[];
  /** Whether the calls app (spec 2.3) can decline a call; without it, the app only logs the call. */
  readonly callRejection: boolean;
  /** The session settings (`config.proxy`, ...) it honours; any other is refused with 422. */
  readonly settings: readonly (keyof EngineSettings)[];
  /** Arguments of its operations it refuses. */
  readonly refusedArguments: readonly RefusedArgument[];
}

/** Registration of a new number by SMS or voice: WhatsApp Web links a device by a code instead. */
const REGISTRATION: RefusedArgument = {
  op: 'auth.requestCode',
  field: 'method',
  what: 'registering a number by SMS or voice (`method`): it links a device by a code typed on the phone; leave `method` out',
};

const PASSKEY_OPS = ['auth.passkey.challenge', 'auth.passkey.submit', 'auth.passkey.confirmation', 'auth.passkey.confirm'] as const;

function opsExcept(...left: readonly EngineOp[]): readonly EngineOp[] {
  return ENGINE_OPS.filter((op) => !left.includes(op));
}
/** The channel ops on the account's own channels: what WEBJS and GOWS both do (their libraries differ on the preview and the search). */
const ACCOUNT_CHANNEL_OPS = [
  'channels.list',
  'channels.create',
  'channels.get',
  'channels.delete',
  'channels.follow',
  'channels.unfollow',
  'channels.mute',
  'channels.unmute',
] as const satisfies readonly EngineOp[];

function eventsExcept(...left: readonly EventName[]): readonly EventName[] {
  return EVENT_NAMES.filter((event) => !left.includes(event));
}

/**
 * Each built engine, from what its class implements (engine-pod/src/engines/<engine>/): an op is
 * listed when the engine has the method it needs, an event when the engine emits it. A test keeps
 * this table and the classes equal (engine-pod/test/engine-catalog.test.ts).
 */
export const ENGINE_CATALOG: Readonly<Record<BuiltEngine, EngineCapabilities>> = {
  SANDBOX: {
    image: 'socket',
    pod: {
      requests: { cpu: '25m', memory: '96Mi' },
      limits: { memory: '256Mi' },
      heapShare: 0.75,
      holds: "The simulated account: the engine pod's Node process and nothing else.",
    },
    description: 'A simulated account: no phone, no network. Tests and bots play the other side with POST /api/{session}/sandbox/simulate.',
    pairing: ['qr', 'code', 'passkey'],
    operations: opsExcept('session.screenshot'),
    events: EVENT_NAMES,
    callRejection: true,
    settings: [],
    refusedArguments: [],
  },
  NOWEB: {
    image: 'socket',
    // The limit is 2x its highest busy peak before the V8 settings, for a real account's first
    // history sync, which the fake server's is far smaller than.
    pod: {
      requests: { cpu: '50m', memory: '144Mi' },
      limits: { memory: '768Mi' },
      heapShare: 0.75,
      holds: 'Baileys: a Node process holding one websocket to WhatsApp.',
    },
    description:
      "WhatsApp Web's protocol spoken directly over a websocket (Baileys), no browser. Labels (WhatsApp Business) are app state patches, as on the phone.",
    pairing: ['qr', 'code'],
    operations: opsExcept(...PASSKEY_OPS, 'send.buttons', 'send.list', 'sandbox.simulate', 'group.delete', 'channels.search', 'session.screenshot'),
    events: eventsExcept('message.waiting', 'event.response', 'event.response.failed', 'group.join', 'group.leave', 'state.change'),
    callRejection: true,
    settings: ['proxy', 'ignore', 'client', 'noweb', 'clientVersion'],
    refusedArguments: [
      REGISTRATION,
      {
        op: 'send.media',
        field: 'convert',
        what: 'converting files (`convert`): it sends them as they are; send OGG/Opus voice and MP4 (H.264/AAC) video with convert false',
      },
    ],
  },
  WEBJS: {
    image: 'browser',
    // The limit: the Chromium measured here plus WhatsApp Web itself, which needs the internet.
    pod: {
      requests: { cpu: '250m', memory: '1Gi' },
      limits: { memory: '2Gi' },
      heapShare: 0.25,
      holds: 'whatsapp-web.js: Node and Chromium with WhatsApp Web loaded.',
    },
    description:
      'WhatsApp Web in a headless Chromium (whatsapp-web.js): sends text, media, locations, polls, votes, contact cards and events, ' +
      'reacts, edits, deletes, forwards, stars and pins, marks read, types, posts statuses, manages chats, contacts, groups, ' +
      'labels (WhatsApp Business) and the profile; what the library cannot do answers 422.',
    pairing: ['qr', 'code'],
    operations: [
      'auth.qr',
      'auth.requestCode',
      'me',
      'send.text',
      'send.media',
      'send.poll',
      'send.pollVote',
      'send.location',
      'send.contactVcard',
      'send.event',
      'message.forward',
      'message.react',
      'message.star',
      'chat.seen',
      'chat.typing',
      'message.edit',
      'message.delete',
      'message.pin',
      'chat.delete',
      'chat.picture',
      'chat.clearMessages',
      'chat.read',
      'chat.archive',
      'chat.unread',
      'presence.set',
      'account.checkNumber',
      'contacts.list',
      'contacts.get',
      'contacts.about',
      'contacts.picture',
      'contacts.block',
      'contacts.unblock',
      'contacts.update',
      'group.create',
      'group.list',
      'group.refresh',
      'group.get',
      'group.leave',
      'group.joinInfo',
      'group.join',
      'group.picture',
      'group.setPicture',
      'group.deletePicture',
      'group.setSubject',
      'group.setDescription',
      'group.settings',
      'group.setSetting',
      'group.inviteCode',
      'group.revokeInvite',
      'group.participants',
      'labels.list',
      'labels.ofChat',
      'labels.setForChat',
      'labels.chats',
      'profile.get',
      'profile.setName',
      'profile.setStatus',
      'profile.setPicture',
      'profile.deletePicture',
      'status.text',
      'status.media',
      'status.delete',
      'call.reject',
      ...ACCOUNT_CHANNEL_OPS,
      'channels.search',
      'session.screenshot',
    ],
    events: [
      'session.status',
      'message',
      'message.any',
      'message.reaction',
      'message.ack',
      'message.ack.group',
      'message.waiting',
      'message.edited',
      'message.revoked',
      'group.v2.join',
      'group.v2.leave',
      'group.v2.participants',
      'group.v2.update',
      'poll.vote',
      'call.received',
      'engine.event',
      'group.join',
      'group.leave',
      'state.change',
      'chat.archive',
      'label.chat.added',
      'label.chat.deleted',
      'call.rejected',
    ],
    callRejection: true,
    settings: [],
    refusedArguments: [
      REGISTRATION,
      ...(
        ['send.text', 'send.media', 'send.poll', 'send.location', 'send.contactVcard', 'message.forward', 'status.text', 'status.media'] as const
      ).map((op) => ({
        op,
        field: 'id',
        what: 'sending with a pre-generated message id (`id`): WhatsApp Web makes up its own',
      })),
      {
        op: 'send.media',
        field: 'convert',
        what: 'converting files (`convert`): it sends them as they are; send OGG/Opus voice and MP4 (H.264/AAC) video with convert false',
      },
      { op: 'send.media', field: 'asNote', what: 'video notes (`asNote`): whatsapp-web.js sends videos only as videos' },
      ...(['status.text', 'status.media', 'status.delete'] as const).map((op) => ({
        op,
        field: 'contacts',
        what: 'choosing who sees a status (`contacts`): WhatsApp Web posts to the recipients the account’s status privacy names',
      })),
    ],
  },
  GOWS: {
    image: 'gows',
    // The Go engine's own pod: idle at 23 MiB, 28 MiB at most under a burst of 300 sends and 300
    // receipts; the limit leaves a real account's first history sync and a 16 MiB media upload
    // (held whole while encrypted) the room the fake server's small one did not need. GOMEMLIMIT is
    // 4/5 of the limit; heapShare is for the Node pod that hosts it as a child instead.
    pod: {
      requests: { cpu: '25m', memory: '48Mi' },
      limits: { memory: '256Mi' },
      heapShare: 0.5,
      holds: "whatsmeow: the Go engine's own pod (the `gows` image), no Node. GOMEMLIMIT is 4/5 of the limit.",
    },
    description:
      "WhatsApp's protocol spoken directly by whatsmeow, in Go: one small process per session, no browser (engines/gows/). " +
      'Sends text, media (image, file, voice, video), locations, polls (and votes on them), event messages, contact cards and button replies, reacts, forwards, edits, deletes, pins and stars messages, marks read, types, archives, marks unread, clears and deletes chats and reads their pictures, sets its presence, subscribes to presence and reads the presences heard, rejects calls, checks numbers, reads the profile and sets its name, About text and picture, reads contacts (their About text and picture), names and blocks them, labels chats (app state patches, as on the phone), posts and deletes statuses, creates, reads, follows, mutes, previews and deletes channels (not searching them), creates, reads, joins, leaves and administers groups and their pictures, and reports messages (received media kept), acks, reactions, edits, revokes, poll votes, presence, calls, archive, group and label changes so far; every other operation answers 422 until it is built.',
    pairing: ['qr', 'code'],
    operations: [
      'auth.qr',
      'auth.requestCode',
      'me',
      'account.newMessageId',
      'account.checkNumber',
      'profile.get',
      'profile.setName',
      'profile.setStatus',
      'profile.setPicture',
      'profile.deletePicture',
      'send.text',
      'send.media',
      'send.linkCustomPreview',
      'send.location',
      'send.poll',
      'send.event',
      'send.contactVcard',
      'send.buttonReply',
      'send.pollVote',
      'message.react',
      'chat.seen',
      'chat.typing',
      'chat.archive',
      'chat.unread',
      'chat.delete',
      'chat.clearMessages',
      'chat.picture',
      'chat.read',
      'call.reject',
      'message.edit',
      'message.delete',
      'message.pin',
      'message.star',
      'message.forward',
      'presence.set',
      'presence.subscribe',
      'presence.list',
      'presence.get',
      'group.create',
      'group.list',
      'group.refresh',
      'group.get',
      'group.leave',
      'group.joinInfo',
      'group.join',
      'group.setSubject',
      'group.setDescription',
      'group.settings',
      'group.setSetting',
      'group.inviteCode',
      'group.revokeInvite',
      'group.participants',
      'group.picture',
      'group.setPicture',
      'group.deletePicture',
      'contacts.list',
      'contacts.get',
      'contacts.about',
      'contacts.picture',
      'contacts.block',
      'contacts.unblock',
      'contacts.update',
      'labels.list',
      'labels.create',
      'labels.update',
      'labels.delete',
      'labels.ofChat',
      'labels.setForChat',
      'labels.chats',
      'status.text',
      'status.media',
      'status.delete',
      ...ACCOUNT_CHANNEL_OPS,
      'channels.preview',
    ],
    events: [
      'session.status',
      'message',
      'message.any',
      'message.ack',
      'message.ack.group',
      'message.reaction',
      'message.edited',
      'message.revoked',
      'poll.vote',
      'poll.vote.failed',
      'presence.update',
      'call.received',
      'call.accepted',
      'call.rejected',
      'chat.archive',
      'group.v2.join',
      'group.v2.leave',
      'group.v2.participants',
      'group.v2.update',
      'label.upsert',
      'label.deleted',
      'label.chat.added',
      'label.chat.deleted',
      // Only what the history needs of the library's own events: a chat deleted on the phone, the phone's history syncs.
      'engine.event',
    ],
    callRejection: true,
    settings: ['clientVersion'],
    refusedArguments: [REGISTRATION],
  },
  WPP: {
    image: 'browser',
    // The same Chromium as WEBJS, with WPPConnect's wa-js in the page: WEBJS's room.
    pod: {
      requests: { cpu: '250m', memory: '1Gi' },
      limits: { memory: '2Gi' },
      heapShare: 0.25,
      holds: "WPPConnect: Node and Chromium with WhatsApp Web and wa-js loaded (WEBJS's room).",
    },
    description:
      'WhatsApp Web in a headless Chromium driven by WPPConnect (its wa-js injected into the page): pairs by QR code or a code typed on the phone, restarts without a new one from the saved profile, ' +
      'sends and receives text, sends files (image, file, voice, video and video notes, through WhatsApp Web’s upload), locations, contact cards, polls and event messages, keeps received files, marks chats read, types, reacts to, edits, revokes, forwards, stars and pins messages, archives, marks unread, clears and deletes chats, sets its presence, subscribes to other accounts’ presence and reads the presences heard, checks numbers, reads contacts (their About text and picture) and blocks them, reads the profile and sets its name, About text and picture, labels chats (WhatsApp Business), creates, reads, joins, leaves and administers groups and reads and sets their pictures, creates, reads (by id), follows, mutes, deletes and searches (by text) channels, posts and deletes text, image, video and voice statuses, rejects calls, takes screenshots of its page, and reports channel posts, acks, reactions, edits, revokes, votes, presence, calls, group changes and its connection state. What WPPConnect and its wa-js cannot do (votes on polls, saving contacts) answers 422.',
    pairing: ['qr', 'code'],
    operations: [
      'auth.qr',
      'auth.requestCode',
      'me',
      'send.text',
      // Files sent and kept: wpp-media.ts.
      'send.media',
      'send.location',
      'chat.seen',
      'chat.typing',
      // The page as Chromium renders it: wpp-connection.ts.
      'session.screenshot',
      // Chats and presence: wpp-chats.ts.
      'chat.delete',
      'chat.picture',
      'chat.clearMessages',
      'chat.read',
      'chat.archive',
      'chat.unread',
      'presence.set',
      // Other accounts' presence: wpp-presence.ts.
      'presence.subscribe',
      'presence.get',
      'presence.list',
      // Contacts: wpp-contacts.ts (WPPConnect cannot save one: no contacts.update).
      'account.checkNumber',
      'contacts.list',
      'contacts.get',
      'contacts.about',
      'contacts.picture',
      'contacts.block',
      'contacts.unblock',
      // The account's own profile: wpp-profile.ts.
      'profile.get',
      'profile.setName',
      'profile.setStatus',
      'profile.setPicture',
      'profile.deletePicture',
      // Labels (WhatsApp Business): wpp-labels.ts.
      'labels.list',
      'labels.ofChat',
      'labels.setForChat',
      'labels.chats',
      // Groups (engines/wpp/wpp-groups.ts).
      'group.create',
      'group.list',
      'group.refresh',
      'group.get',
      'group.leave',
      'group.joinInfo',
      'group.join',
      'group.picture',
      'group.setPicture',
      'group.deletePicture',
      'group.setSubject',
      'group.setDescription',
      'group.settings',
      'group.setSetting',
      'group.inviteCode',
      'group.revokeInvite',
      'group.participants',
      // Statuses (engines/wpp/wpp-stories.ts).
      'status.text',
      'status.media',
      'status.delete',
      // Calls (engines/wpp/wpp-calls.ts).
      'call.reject',
      // Actions on messages, contact cards and polls: wpp-chatting.ts (no poll votes: wa-js has none).
      'message.react',
      'message.edit',
      'message.delete',
      'message.forward',
      'message.star',
      'message.pin',
      'send.contactVcard',
      'send.poll',
      // Channels: wpp-channels.ts (by id only, searched by text only: wa-js has no lookup by invite nor view).
      ...ACCOUNT_CHANNEL_OPS,
      'channels.search',
      // Event messages: wpp-event-messages.ts.
      'send.event',
    ],
    events: [
      'session.status',
      'message',
      'message.any',
      'message.ack',
      'message.ack.group',
      'message.reaction',
      'message.edited',
      'message.revoked',
      'poll.vote',
      'chat.archive',
      'presence.update',
      'label.chat.added',
      'label.chat.deleted',
      'group.v2.join',
      'group.v2.leave',
      'group.v2.participants',
      'group.v2.update',
      'call.received',
      'call.rejected',
      // Events that translate nothing: engines/wpp/wpp-events.ts.
      'state.change',
      'group.join',
      'group.leave',
      'engine.event',
    ],
    callRejection: true,
    settings: [],
    refusedArguments: [
      REGISTRATION,
      ...(['status.text', 'status.media', 'status.delete'] as const).map((op) => ({
        op,
        field: 'contacts',
        what: 'choosing who sees a status (`contacts`): WhatsApp Web posts to the recipients the account’s status privacy names',
      })),
      {
        op: 'message.forward',
        field: 'id',
        what: 'forwarding with a pre-generated message id (`id`): WhatsApp Web makes up its own',
      },
      {
        op: 'status.media',
        field: 'id',
        what: 'posting a status with a file under a pre-generated message id (`id`): WhatsApp Web keys it itself',
      },
      {
        op: 'send.media',
        field: 'convert',
        what: 'converting files (`convert`): it sends them as they are; send OGG/Opus voice and MP4 (H.264/AAC) video with convert false',
      },
      {
        op: 'channels.search',
        field: 'view',
        what: 'searching the channel directory by view (`view`): wa-js searches it by text only; use POST .../channels/search/by-text',
      },
    ],
  },
};

export function supportsOperation(engine: BuiltEngine, op: EngineOp): boolean {
  return ENGINE_CATALOG[engine].operations.includes(op);
}

/** The argument of `command` its engine refuses, if it sets one. */
export function refusedArgumentOf(engine: BuiltEngine, command: EngineCommand): RefusedArgument | null {
  const args: Readonly<Record<string, unknown>> = 'args' in command ? command.args : {};
  const set = (value: unknown) => value !== undefined && value !== null && value !== false && value !== '';
  return ENGINE_CATALOG[engine].refusedArguments.find((refused) => refused.op === command.op && set(args[refused.field])) ?? null;
}

/** The engines honouring each setting of a session's config, from the table. */
export const SETTING_ENGINES: Readonly<Record<keyof EngineSettings, readonly BuiltEngine[]>> = {
  proxy: enginesHonouring('proxy'),
  ignore: enginesHonouring('ignore'),
  client: enginesHonouring('client'),
  noweb: enginesHonouring('noweb'),
  clientVersion: enginesHonouring('clientVersion'),
};

/** The engines that present a client version of their own, a setting (engine-versions.ts). */
export const CLIENT_VERSION_ENGINES: readonly BuiltEngine[] = SETTING_ENGINES.clientVersion;

/**
 * The variable that sets the client version of an engine's sessions: the gateway's (local mode)
 * and the engine pod's, which the operator sets from its own (the chart's `engines.clientVersions`).
 */
export function clientVersionVariable(engine: BuiltEngine): string {
  return `SWITCHBOARD_${engine}_CLIENT_VERSION`;
}

function enginesHonouring(setting: keyof EngineSettings): readonly BuiltEngine[] {
  return BUILT_ENGINES.filter((engine) => ENGINE_CATALOG[engine].settings.includes(setting));
}

/**
 * The settings `config` sets that `engine` cannot honour, in the order above. A setting an engine
 * would ignore is refused instead: by the gateway (422) and, for resources applied with kubectl,
 * by the operator (condition InvalidSpec).
 */
export function unsupportedSettings(engine: EngineName, config: EngineSettings): (keyof EngineSettings)[] {
  return (Object.keys(SETTING_ENGINES) as (keyof EngineSettings)[]).filter(
    (setting) => config[setting] !== undefined && !SETTING_ENGINES[setting].includes(engine),
  );
}

/** One sentence for a refusal: which settings, and which engines take them. */
export function unsupportedSettingsMessage(engine: EngineName, settings: readonly (keyof EngineSettings)[]): string {
  const each = settings.map((setting) => `config.${setting} (only ${SETTING_ENGINES[setting].join(', ')})`);
  return `engine ${engine} cannot honour ${each.join(', ')}; leave ${settings.length > 1 ? 'them' : 'it'} out or pick an engine that can`;
}

/**
 * The calls app's reject rules (`apps[i].config.dm.reject`, `.group.reject`) that are on for an
 * engine that cannot decline a call, as field paths: refused like a setting the engine cannot
 * honour, rather than an app that would only log each call. A disabled app asks nothing.
 * Every built engine declines calls today; `callRejection` is the catalog's unless a test
 * (protocol/test/call-rejection.test.ts) holds the check for an engine that could not.
 */
export function unsupportedCallRejection(
  engine: BuiltEngine,
  apps: readonly AppConfig[],
  callRejection = ENGINE_CATALOG[engine].callRejection,
): string[] {
  if (callRejection) return [];
  return apps.flatMap((app, index) =>
    app.enabled ? (['dm', 'group'] as const).filter((kind) => app.config[kind].reject).map((kind) => `apps[${index}].config.${kind}.reject`) : [],
  );
}

/** The engines whose calls app can decline a call, for the refusal's message and details. */
export const CALL_REJECTING_ENGINES: readonly BuiltEngine[] = BUILT_ENGINES.filter((engine) => ENGINE_CATALOG[engine].callRejection);

/** One sentence for that refusal: which rules, and which engines can decline calls. */
export function unsupportedCallRejectionMessage(engine: BuiltEngine, fields: readonly string[]): string {
  return (
    `engine ${engine} cannot decline calls, so the calls app cannot reject them (${fields.join(', ')}); ` +
    `set reject to false or pick an engine that can (${CALL_REJECTING_ENGINES.join(', ')})`
  );
}

/** `GET /api/server/engines`: the built engines and what each does. */
export const EngineCatalogEntry = z
  .object({
    name: BuiltEngineName,
    image: EngineImageKind,
    description: z.string(),
    pairing: z.array(PairingMethod),
    operations: z.array(z.string()).meta({ description: 'Engine command ops it carries out; a route whose op is missing answers 422' }),
    events: z.array(z.string()).meta({ description: 'Events it can emit' }),
    callRejection: z.boolean().meta({ description: 'Whether the calls app can decline a call on it' }),
    settings: z.array(z.string()).meta({ description: 'The session config settings it honours (config.proxy, ...)' }),
    refusedArguments: z
      .array(z.object({ op: z.string(), field: z.string(), what: z.string() }))
      .meta({ description: 'Arguments of its operations it refuses with 422 (`field` of the body of `op`)' }),
  })
  .meta({ id: 'EngineCatalogEntry' });
export type EngineCatalogEntry = z.infer<typeof EngineCatalogEntry>;

export function engineCatalogEntries(): EngineCatalogEntry[] {
  return BUILT_ENGINES.map((name) => {
    // The pod's size is the operator's default, which a release overrides: not what the gateway serves.
    const { pod: _size, ...entry } = ENGINE_CATALOG[name];
    return {
      name,
      ...entry,
      pairing: [...entry.pairing],
      operations: [...entry.operations],
      events: [...entry.events],
      settings: [...entry.settings],
      refusedArguments: entry.refusedArguments.map((refused) => ({ ...refused })),
    };
  });
}
