import { inspect } from 'node:util';
import type { CommandErrorCode, FieldIssue } from '@switchboard/protocol';

/**
 * A command that cannot be carried out, with what a user needs to fix it. The code travels
 * over the command channel unchanged; the gateway maps it to an HTTP status.
 */
export class CommandError extends Error {
  constructor(
    readonly code: CommandErrorCode,
    message: string,
    /** For INVALID, the 400's list of fields and reasons; otherwise what identifies the refusal. */
    readonly details?: Record<string, unknown> | readonly FieldIssue[],
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** An INVALID in the shape of the gateway's own 400: which body field (`file.url`), and why. */
export function invalidField(field: string, reason: string): CommandError {
  const path = `body.${field}`;
  return new CommandError('INVALID', `invalid request: ${path}: ${reason}`, [{ path, reason }]);
}

/** What a library's rejection says: an Error's message, or whatever else it rejected with, readably. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : inspect(error);
}
