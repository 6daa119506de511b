import { CommandError, CommandObjects } from '@switchboard/engine-pod';
import { CommandReply, type SessionCommand, SUBJECTS } from '@switchboard/protocol';
import { ErrorCode, type MsgHdrs, type NatsConnection, type NatsError } from 'nats';
import { ApiError } from '../http/errors.js';

/** Room left in a message for its headers and NATS's own framing. */
const HEADROOM_BYTES = 4 * 1024;

/**
 * The command channel of cluster mode: a NATS request to `sb.cmd.<session>`, which the one
 * engine pod of the session answers with a CommandReply.
 */
export class SessionCommandChannel {
  private readonly objects: CommandObjects;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 10_000,
  ) {
    this.objects = new CommandObjects(nc);
  }

  /**
   * Resolves to `{result}` from the engine pod, or to null when no pod listens on the session's
   * subject (not running, or still starting). A failed command rejects with its CommandError, so
   * the HTTP layer answers what local mode answers; a pod that does not answer in time, with a 503.
   * A command larger than one NATS message (a base64 file) goes through the object store
   * `sb_commands` (engine-pod command-objects.ts).
   */
  async send(session: string, command: SessionCommand): Promise<{ result: unknown } | null> {
    const json = JSON.stringify(command);
    const spilled = this.tooLarge(json) ? await this.spill(session, json) : null;
    let data: string;
    try {
      const reply = await this.nc.request(SUBJECTS.command(session), spilled ? '' : json, {
        timeout: this.timeoutMs,
        ...(spilled ? { headers: spilled.headers } : {}),
      });
      data = reply.string();
    } catch (error) {
      const code = (error as NatsError).code;
      // No pod took the object: nothing else will (the TTL would remove it later).
      if (spilled && code !== ErrorCode.Timeout) await this.objects.remove(spilled.name);
      if (code === ErrorCode.NoResponders) return null;
      if (code === ErrorCode.Timeout) {
        throw new ApiError(503, `the engine of session '${session}' did not answer within ${this.timeoutMs} ms; try again`, {
          session,
        });
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

  /** Whether the command is larger than what travels in the request itself. */
  private tooLarge(json: string): boolean {
    const largest = (this.nc.info?.max_payload ?? 1024 * 1024) - HEADROOM_BYTES;
    // A UTF-8 byte count needs a pass over the text; a text of n UTF-16 units has at most 3n bytes,
    // so an ordinary command (a sendText) is known to fit without that pass.
    return json.length * 3 > largest && Buffer.byteLength(json) > largest;
  }

  private async spill(session: string, json: string): Promise<{ name: string; headers: MsgHdrs }> {
    try {
      return await this.objects.put(session, json);
    } catch (error) {
      throw new ApiError(
        503,
        `the request for session '${session}' is larger than one NATS message and could not be stored for its engine ` +
          `(${(error as Error).message}); try again, or send the file by url`,
        { session },
      );
    }
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
