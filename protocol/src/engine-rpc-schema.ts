import { z } from 'zod';
import { MessageTextRequest } from './chatting.js';
import { SendSeenResult } from './chatting-actions.js';
import { WANumberExistResult } from './account.js';
import { CommandErrorCode, CommandReply, EngineCommand, SessionCommand } from './commands.js';
import { ENGINE_CATALOG } from './engine-catalog.js';
import { OPERATIONS } from './engine-operations.js';
import { BUILT_ENGINES } from './engines.js';
import { EventEnvelope } from './events/envelope.js';
import { EngineSettings } from './engine-settings.js';
import { EVENT_NAMES } from './events/names.js';
import { EVENT_PAYLOADS } from './events/payloads.js';
import { MessageReactionPayload } from './events/payloads/messages.js';
import { PollVotePayload } from './events/payloads/interactions.js';
import { LabelSpec } from './label.js';
import { MessageRecord } from './message.js';
import { RequestCodeRequest, RequestCodeResponse } from './pairing.js';
import { MyProfile } from './profile.js';
import { MeInfo } from './session.js';
import { SessionStatus } from './status.js';
import { SendPairingRecord, SendQueueRecord, SentMinuteRecord } from './send-queue-records.js';
import { QueueFullDetails, SendQueueCancelResult, SendQueuePage, SendQueueSubmitResult } from './sending.js';

/** A command's args schema, by its op (for the engine methods whose params are derived from them). */
function argsOf(op: EngineCommand['op']): z.ZodType {
  const option = EngineCommand.options.find((candidate) => candidate.shape.op.value === op);
  if (!option || !('args' in option.shape)) throw new Error(`engine command ${op} has no args`);
  return option.shape.args as z.ZodType;
}

/** `args` (an object schema, or a union of them: each one) with `fields` in place of its own and without `drop`. */
function replacing(args: z.ZodType, fields: Record<string, z.ZodType>, drop: readonly string[] = []): z.ZodType {
  const one = (schema: z.ZodType): z.ZodObject => {
    if (!(schema instanceof z.ZodObject)) throw new Error('engine method params: not an object schema');
    return z.object({ ...Object.fromEntries(Object.entries(schema.shape).filter(([key]) => !drop.includes(key))), ...fields });
  };
  if (args instanceof z.ZodDiscriminatedUnion) {
    const [first, ...rest] = (args.options as z.ZodType[]).map(one);
    return z.union([first!, ...rest]);
  }
  return one(args);
}

/** A file the host resolved (downloaded from its url, or its base64 as given): what a method that sends one gets. */
const EngineFile = z.object({ mimetype: z.string(), filename: z.string().nullish(), data: z.base64() }).meta({ id: 'EngineFile' });
/** A contact by its id (`<number>@c.us` or `<id>@lid`): what the contact lookups get. */
const ContactRef = z.object({ id: z.string() }).meta({ id: 'ContactIdParams' });

/**
 * The params of the engine methods whose params are not their command's args (engine-pod's
 * Engine interface, what engine-pod/src/dispatch/ and the Go pod's natshost/ops.go make of the
 * args): files resolved, contact ids named `id`, label and member ids. Every other method's params
 * are its command's args (`args.<op>` of the Go types, from SessionCommand).
 */
const METHOD_PARAMS: Readonly<Record<string, z.ZodType>> = {
  checkNumber: z.object({ phone: z.string() }),
  groups: z.object({ refresh: z.boolean() }),
  contact: ContactRef,
  contactAbout: ContactRef,
  contactPicture: ContactRef,
  setBlocked: z.object({ id: z.string(), blocked: z.boolean() }),
  updateContact: z.object({ id: z.string(), firstName: z.string(), lastName: z.string() }),
  updateLabel: LabelSpec.extend({ id: z.string() }),
  setChatLabels: z.object({ chatId: z.string(), labelIds: z.array(z.string()) }),
  updateGroupParticipants: replacing(argsOf('group.participants'), { participants: z.array(z.string()) }),
  sendContactVcard: replacing(argsOf('send.contactVcard'), { vcards: z.array(z.string()) }, ['contacts']),
  sendMedia: replacing(argsOf('send.media'), { file: EngineFile }),
  sendMediaStatus: replacing(argsOf('status.media'), { file: EngineFile }),
  setGroupPicture: replacing(argsOf('group.setPicture'), { file: EngineFile }),
  setProfilePicture: EngineFile,
  channel: (argsOf('channels.get') as z.ZodObject).shape.channel as z.ZodType,
  // the REST query's default (channels.ts), for a caller that leaves it out
  channelPosts: replacing(argsOf('channels.preview'), { downloadMedia: z.boolean().default(false) }),
  createChannel: replacing(argsOf('channels.create'), { picture: EngineFile.nullish() }),
  sendLinkCustomPreview: replacing(argsOf('send.linkCustomPreview'), {
    preview: replacing((argsOf('send.linkCustomPreview') as z.ZodObject).shape.preview as z.ZodType, { image: EngineFile.nullish() }),
  }),
};

/**
 * What crosses the GOWS engine RPC (engines/gows/PROTOCOL.md), by the name the Go side looks it
 * up by: the params the host sends, the results and notifications the engine sends back, and the
 * payload of every event (`event.<name>`; `session.status` the host makes itself, and the Go engine pod
 * checks it too). Then what the Go engine pod (`switchboard-gows nats`) speaks on NATS: commands, replies, envelopes.
 */
const RPC_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  // host -> engine
  StartParams: z.object({ session: z.string(), settings: EngineSettings }),
  EngineSettings,
  RequestCodeRequest,
  SendTextArgs: MessageTextRequest.omit({ session: true }),
  // engine -> host: results
  RequestCodeResponse,
  MessageRecord,
  MessageReactionPayload,
  PollVotePayload,
  SendSeenResult,
  WANumberExistResult,
  MyProfile,
  Capabilities: z.object({ methods: z.array(z.string()) }),
  // the `data` of a JSON-RPC error the engine answers with (-32000)
  RpcErrorData: z.object({ code: CommandErrorCode, details: z.record(z.string(), z.unknown()).optional() }),
  // engine -> host: notifications and requests
  StatusNotification: z.object({ status: SessionStatus, reason: z.string().optional() }),
  MeNotification: z.object({ me: MeInfo.nullable() }),
  EventNotification: z.object({ event: z.enum(EVENT_NAMES.filter((name) => name !== 'session.status')), payload: z.record(z.string(), z.unknown()) }),
  AuthGetParams: z.object({ type: z.string(), ids: z.array(z.string()) }),
  AuthSetParams: z.object({ data: z.record(z.string(), z.record(z.string(), z.unknown())) }),
  MediaSaveParams: z.object({ mimetype: z.string(), filename: z.string().nullish(), data: z.base64() }),
  SessionStatus,
  MeInfo,
  // the engine pod protocol on NATS (`switchboard-gows nats`, engines/gows/internal/natshost/): sb.cmd.<session> and SB_EVENTS
  SessionCommand,
  CommandReply,
  // paced sending (host.sendQueue.*): results, the QUEUE_FULL details, the records of KV_BUCKETS.sendQueues
  SendQueueSubmitResult,
  SendQueuePage,
  SendQueueCancelResult,
  QueueFullDetails,
  SendQueueRecord,
  SentMinuteRecord,
  SendPairingRecord,
  EventEnvelope,
  ...Object.fromEntries(EVENT_NAMES.map((name) => [`event.${name}`, EVENT_PAYLOADS[name]])),
  ...Object.fromEntries(Object.entries(METHOD_PARAMS).map(([method, params]) => [`params.${method}`, params])),
};

type JsonSchema = Record<string, unknown>;

/**
 * One JSON Schema (draft 2020-12) document with every schema of RPC_SCHEMAS under `$defs`, by
 * its name there, beside the protocol's named schemas they refer to. The Go engine's tests validate
 * what it sends against `#/$defs/<name>`, so the two implementations cannot drift; a test here
 * fails when the generated file (engines/gows/engine-rpc.schema.json) is stale. Beside the
 * schemas, `x-operations` is protocol's table of engine command ops (engine-operations.ts: name,
 * engine method, needed statuses) and `x-engine-operations` each engine's ops from the catalog: the
 * Go engine pod's host routes and refuses commands by them (engines/gows/internal/natshost/operations.go), so an op is
 * declared once, here, for both languages.
 */
export function engineRpcJsonSchema(): JsonSchema {
  const all = z.toJSONSchema(z.object(RPC_SCHEMAS), { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  const named = (all.$defs ?? {}) as Record<string, JsonSchema>;
  const properties = all.properties as Record<string, JsonSchema>;
  const defs: Record<string, JsonSchema> = { ...named };
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.$ref === `#/$defs/${name}`) continue;
    if (named[name]) throw new Error(`engine RPC schema ${name} has the name of another protocol schema`);
    defs[name] = schema;
  }
  const sorted = Object.fromEntries(Object.entries(defs).sort(([a], [b]) => a.localeCompare(b)));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment:
      'Generated from protocol/ by protocol/src/write-engine-rpc-schema.ts (pnpm --filter @switchboard/protocol gen:gows-schema): do not edit by hand.',
    $defs: sorted,
    'x-operations': OPERATIONS,
    'x-engine-operations': Object.fromEntries(BUILT_ENGINES.map((engine) => [engine, ENGINE_CATALOG[engine].operations])),
  };
}
