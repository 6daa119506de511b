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
]);
export type HostCommand = z.infer<typeof HostCommand>;

/** Everything the command subject of a session accepts. */
export const SessionCommand = z.union([EngineCommand, HostCommand]);
export type SessionCommand = z.infer<typeof SessionCommand>;

/**
 * Machine-readable reasons a command fails; the gateway maps each to an HTTP status. NOT_STORED
 * (503) and STORAGE_FULL (507): the events the command made could not be stored in the event
 * stream (cluster mode), so its success is not reported.
 */
export const CommandErrorCode = z.enum(['INVALID', 'NOT_FOUND', 'WRONG_STATUS', 'NOT_SUPPORTED', 'ENGINE_ERROR', 'NOT_STORED', 'STORAGE_FULL']);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: CommandErrorCode, message: z.string(), details: z.unknown().optional() }),
  }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
