import { CommandError } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import type { ApiSendGate } from './api-send-gate.js';
import type { OwnEchoes } from './own-echo.js';
import type { WebjsClientLike, WebjsContentClasses, WebjsMessageHandle } from './webjs-client.js';

/** What the per-area files (chatting.ts, chats.ts ...) need of the engine. */
export interface WebjsDeps {
  readonly context: EngineContext;
  readonly gate: ApiSendGate;
  readonly echoes: OwnEchoes;
  /** The running client; WRONG_STATUS otherwise. */
  client(): WebjsClientLike;
  /** The library's content classes, loaded on first use. */
  content(): Promise<WebjsContentClasses>;
  meId(): string;
  notSupported(what: string): CommandError;
  /** Library failures become ENGINE_ERROR with what was being done; our own errors pass. */
  engineError(doing: string): (error: unknown) => never;
}

/** How long an action waits for the event that reports what it made (own-echo.ts). */
export const ECHO_WAIT_MS = 15_000;

/** A message by its full id, which is the library's serialized key; NOT_FOUND when WhatsApp Web has none. */
export async function findMessage(deps: WebjsDeps, id: string): Promise<WebjsMessageHandle> {
  const message = await deps
    .client()
    .getMessageById(id)
    .catch(deps.engineError(`find message ${id}`));
  if (!message) throw new CommandError('NOT_FOUND', `WEBJS found no message ${id}`, { messageId: id });
  return message;
}
