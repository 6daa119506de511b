import { z } from 'zod';
import { AppConfig } from './apps.js';
import { accountCommands } from './commands/account.js';
import { callAndEventCommands } from './commands/calls.js';
import { chatsCommands } from './commands/chats.js';
import { channelCommands } from './commands/channels.js';
import { chattingCommands } from './commands/chatting.js';
import { command } from './commands/command.js';
import { groupCommands } from './commands/groups.js';
import { contactCommands, labelCommands } from './commands/contacts.js';
import { pairingCommands } from './commands/pairing.js';
import { presenceCommands } from './commands/presence.js';
import { profileCommands } from './commands/profile.js';
import { sandboxCommands } from './commands/sandbox.js';
import { screenshotCommands } from './commands/screenshot.js';
import { storyCommands } from './commands/stories.js';
import { MAX_SEND_WAIT_MS, SendingConfig, SendQueueQuery } from './sending.js';

/**
 * The engine command contract: what the gateway asks of one session's engine host. In local
 * mode it is a direct call; in cluster mode the same object is a NATS request. Each area keeps
 * its commands in `commands/<area>.ts`; the engine host has one handler per op
 * (engine-pod/src/dispatch/), which the type system keeps complete.
 */
export const EngineCommand = z.discriminatedUnion('op', [
  ...pairingCommands,
  ...accountCommands,
  ...profileCommands,
  ...chattingCommands,
  ...groupCommands,
  ...chatsCommands,
  ...presenceCommands,
  ...callAndEventCommands,
  ...sandboxCommands,
  ...contactCommands,
  ...labelCommands,
  ...channelCommands,
  ...storyCommands,
  ...screenshotCommands,
]);
export type EngineCommand = z.infer<typeof EngineCommand>;
export type EngineOp = EngineCommand['op'];

/**
 * The engine commands paced sending queues: each makes one new message in one chat, and takes
 * `chatId` and the message's `id` (protocol `sendFields`). The gateway's routes mark the same
 * ones `paced`; a test keeps the two in step.
 */
export const PACED_OPS = [
  'send.text',
  'send.media',
  'send.linkCustomPreview',
  'send.buttons',
  'send.list',
  'send.poll',
  'send.pollVote',
  'send.location',
  'send.contactVcard',
] as const satisfies readonly EngineOp[];

/**
 * A paced engine command as it travels in `host.sendQueue.submit` and is kept in the queue's
 * records: its op and its args, which the engine pod checks as that op's (EngineCommand) before it
 * queues it. Left open here so that the RPC schema does not carry every command's args twice.
 */
export const PacedCommand = z
  .object({
    op: z.enum(PACED_OPS),
    args: z.record(z.string(), z.unknown()).meta({ description: "The op's args (EngineCommand), chatId among them; `id` set once queued" }),
  })
  .meta({ id: 'PacedCommand' });
export type PacedCommand = z.infer<typeof PacedCommand>;

/**
 * What runs a host asks of it besides engine commands. In cluster mode these travel on the same
 * subject as engine commands, to the one engine pod of the session.
 */
export const HostCommand = z.discriminatedUnion('op', [
  /** Unpair, then start again (spec part 3, rule 4: the pod exists, so the session is running). */
  command('host.logout'),
  /** Metadata applies from the next event, without a restart. */
  command('host.setMetadata', z.object({ metadata: z.record(z.string(), z.string()) })),
  /** The session's apps (spec 2.3) apply from the next event, without a restart. */
  command('host.setApps', z.object({ apps: z.array(AppConfig) })),
  /** The host's view: `{status, statuses, me}`, for whoever writes the resource status. */
  command('host.status'),
  /**
   * Paced sending in cluster mode (docs/api.md "Paced sending"): the session's engine pod owns its
   * send queue. `submit` queues a paced engine command (one that takes `chatId` and `id`) and
   * waits up to `waitMs` for it to go out: SendQueueSubmitResult; QUEUE_FULL when the queue is
   * full, CONFLICT when a send with its id waits already or it is cancelled while waited for.
   */
  command(
    'host.sendQueue.submit',
    z.object({
      route: z.string().min(1).max(200).meta({ description: 'The REST route it was sent to, e.g. /api/sendText (listed with the send)' }),
      command: PacedCommand,
      waitMs: z.int().min(0).max(MAX_SEND_WAIT_MS),
    }),
  ),
  /** One page of the waiting sends, oldest first: SendQueuePage. */
  command('host.sendQueue.list', SendQueueQuery.extend({ limit: z.int().min(1).max(1000), offset: z.int().min(0) })),
  /** Cancels a waiting send: SendQueueCancelResult (`cancelled` false: sent, being sent, or not there). */
  command('host.sendQueue.cancel', z.object({ id: z.string().min(1).max(64) })),
  /** The session's `sending` config applies from the next send, without a restart (null: off; what waits still goes, unpaced). */
  command('host.sendQueue.setConfig', z.object({ sending: SendingConfig.nullable() })),
]);
export type HostCommand = z.infer<typeof HostCommand>;

/** Everything the command subject of a session accepts. */
export const SessionCommand = z.union([EngineCommand, HostCommand]);
export type SessionCommand = z.infer<typeof SessionCommand>;

/**
 * Machine-readable reasons a command fails; the gateway maps each to an HTTP status. NOT_STORED
 * (503) and STORAGE_FULL (507): the events the command made could not be stored in the event
 * stream (cluster mode), so its success is not reported. QUEUE_FULL (429, details
 * `QueueFullDetails`: `Retry-After` is its `retryAfterSeconds`) and CONFLICT (409): paced sending.
 */
export const CommandErrorCode = z.enum([
  'INVALID',
  'NOT_FOUND',
  'WRONG_STATUS',
  'NOT_SUPPORTED',
  'ENGINE_ERROR',
  'NOT_STORED',
  'STORAGE_FULL',
  'QUEUE_FULL',
  'CONFLICT',
]);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: CommandErrorCode, message: z.string(), details: z.unknown().optional() }),
  }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
