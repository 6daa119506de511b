import type { CommandErrorCode } from '@switchboard/protocol';

/**
 * A command that cannot be carried out, with what a user needs to fix it. The code travels
 * over the command channel unchanged; the gateway maps it to an HTTP status.
 */
export class CommandError extends Error {
  constructor(
    readonly code: CommandErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}
