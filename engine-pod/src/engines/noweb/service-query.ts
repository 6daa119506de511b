import type makeWASocket from '@whiskeysockets/baileys';
import { CommandError, reasonOf } from '../../command-error.js';

type WASocket = ReturnType<typeof makeWASocket>;

/** The service (or Baileys) failed at `doing`: the engine's error, in the words of what it was doing. */
export function serviceFailure(doing: string, error: unknown): CommandError {
  return new CommandError('ENGINE_ERROR', `NOWEB could not ${doing}: ${reasonOf(error)}`);
}

/**
 * A query to the service on the current socket. The engine's own errors (no socket yet, say) pass
 * as they are; any other failure is a {@link serviceFailure}.
 */
export async function askService<T>(socket: () => WASocket, doing: string, query: (socket: WASocket) => Promise<T>): Promise<T> {
  try {
    return await query(socket());
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw serviceFailure(doing, error);
  }
}
