import { CommandError } from '@switchboard/engine-pod';
import { CommandReply, type SessionCommand, SUBJECTS } from '@switchboard/protocol';
import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { ApiError } from '../http/errors.js';

/**
 * The command channel of cluster mode: a NATS request to `sb.cmd.<session>`, which the one
 * engine pod of the session answers with a CommandReply.
 */
export class SessionCommandChannel {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 10_000,
  ) {}

  /**
   * Resolves to `{result}` from the engine pod, or to null when no pod listens on the session's
   * subject (not running, or still starting). A failed command rejects with its CommandError, so
   * the HTTP layer answers what local mode answers; a pod that does not answer in time, with a 503.
   */
  async send(session: string, command: SessionCommand): Promise<{ result: unknown } | null> {
    let data: string;
    try {
      const reply = await this.nc.request(SUBJECTS.command(session), JSON.stringify(command), { timeout: this.timeoutMs });
      data = reply.string();
    } catch (error) {
      const code = (error as NatsError).code;
      if (code === ErrorCode.NoResponders) return null;
      if (code === ErrorCode.Timeout) {
        throw new ApiError(503, `the engine of session '${session}' did not answer within ${this.timeoutMs} ms; try again`, {
          session,
        });
      }
      if (code === ErrorCode.MaxPayloadExceeded) {
        // A base64 file travels inside the command; NATS caps a message at the server's max_payload.
        const maxPayload = this.nc.info?.max_payload;
        throw new ApiError(
          413,
          `the request for session '${session}' is larger than the ${maxPayload} bytes this cluster's NATS carries in one message; ` +
            'send the file by url, or raise max_payload in the NATS server configuration',
          { session, maxPayload },
        );
      }
      throw error;
    }
    const reply = parseReply(data);
    if (!reply) {
      throw new CommandError('ENGINE_ERROR', `the engine of session '${session}' sent a reply this gateway cannot read`, { session });
    }
    if (!reply.ok) {
      const { code, message, details } = reply.error;
      throw new CommandError(code, message, details as Record<string, unknown> | undefined);
    }
    return { result: reply.result };
  }
}

function parseReply(data: string): CommandReply | null {
  try {
    const parsed = CommandReply.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
