import { CommandError } from '@switchboard/engine-pod';
import { CommandClient, CommandClientError } from '@switchboard/kube';
import type { CommandReply, SessionCommand } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';
import { ApiError } from '../http/errors.js';

/**
 * The command channel of cluster mode: a NATS request to `sb.cmd.<session>`, which the one
 * engine pod of the session answers with a CommandReply (`CommandClient`), its failures in the
 * errors the HTTP layer answers.
 */
export class SessionCommandChannel {
  private readonly client: CommandClient;

  constructor(
    nc: NatsConnection,
    /** How long an engine pod has to answer a command (a paced send: its wait, and this beside it). */
    readonly timeoutMs = 10_000,
  ) {
    this.client = new CommandClient(nc);
  }

  /**
   * Resolves to `{result}` from the engine pod, or to null when no pod listens on the session's
   * subject (not running, or still starting). A failed command rejects with its CommandError, so
   * the HTTP layer answers what local mode answers; a pod that does not answer in time, with a 503.
   * A command larger than one NATS message (a base64 file) goes through the session's own object
   * store `sb_commands_<token>` (kube's command-objects.ts).
   */
  async send(session: string, command: SessionCommand, timeoutMs = this.timeoutMs): Promise<{ result: unknown } | null> {
    let reply: CommandReply;
    try {
      reply = await this.client.request(session, command, timeoutMs);
    } catch (error) {
      if (!(error instanceof CommandClientError)) throw error;
      switch (error.failure) {
        case 'no-responders':
          return null;
        case 'timeout':
          throw new ApiError(503, `the engine of session '${session}' did not answer within ${timeoutMs} ms; try again`, {
            session,
          });
        case 'unreadable':
          throw new CommandError('ENGINE_ERROR', `the engine of session '${session}' sent a reply this gateway cannot read`, { session });
        case 'not-stored':
          throw new ApiError(
            503,
            `the request for session '${session}' is larger than one NATS message and could not be stored for its engine ` +
              `(${error.message}); try again, or send the file by url`,
            { session },
          );
        case 'failed':
          throw error.cause;
      }
    }
    if (!reply.ok) {
      const { code, message, details } = reply.error;
      throw new CommandError(code, message, details as Record<string, unknown> | undefined);
    }
    return { result: reply.result };
  }
}
