import { CommandReply, type SessionCommand, SUBJECTS } from '@switchboard/protocol';
import { ErrorCode, type MsgHdrs, type NatsConnection, type NatsError } from 'nats';
import { CommandObjects } from './nats/command-objects.js';

/** Room left in a message for its headers and NATS's own framing. */
const HEADROOM_BYTES = 4 * 1024;

/** Why a command got no reply to read. Each caller turns it into its own error. */
export type CommandFailure =
  /** No engine pod listens on the session's subject (not running, or still starting). */
  | 'no-responders'
  /** The pod did not answer in time. */
  | 'timeout'
  /** An answer came that is not a CommandReply. */
  | 'unreadable'
  /** The command is larger than one NATS message and could not be put in the object store. */
  | 'not-stored'
  /** Anything else NATS reported (the connection closed, ...). */
  | 'failed';

export class CommandClientError extends Error {
  override readonly name = 'CommandClientError';
  constructor(
    readonly failure: CommandFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The engine command channel of cluster mode, the one client of it: a NATS request to
 * `sb.cmd.<session>`, which the one engine pod of the session answers with a CommandReply. A
 * command larger than one NATS message (a base64 file) goes through the session's own object
 * store `sb_commands_<token>` (`CommandObjects`). The gateway sends API commands with it, the
 * operator host commands; each maps a `CommandClientError` and an error reply to its own errors.
 */
export class CommandClient {
  private readonly objects: CommandObjects;

  constructor(private readonly nc: NatsConnection) {
    this.objects = new CommandObjects(nc);
  }

  /** The pod's reply, ok or not; a CommandClientError when there is none to read. */
  async request(session: string, command: SessionCommand, timeoutMs: number): Promise<CommandReply> {
    const json = JSON.stringify(command);
    const spilled = this.tooLarge(json) ? await this.spill(session, json) : null;
    let data: string;
    try {
      const reply = await this.nc.request(SUBJECTS.command(session), spilled ? '' : json, {
        timeout: timeoutMs,
        ...(spilled ? { headers: spilled.headers } : {}),
      });
      data = reply.string();
    } catch (error) {
      const code = (error as NatsError).code as ErrorCode;
      // No pod took the object: nothing else will (the TTL would remove it later).
      if (spilled && code !== ErrorCode.Timeout) await this.objects.remove(session, spilled.name);
      const message = (error as Error).message;
      if (code === ErrorCode.NoResponders) throw new CommandClientError('no-responders', message, { cause: error });
      if (code === ErrorCode.Timeout) throw new CommandClientError('timeout', message, { cause: error });
      throw new CommandClientError('failed', message, { cause: error });
    }
    const reply = parseReply(data);
    if (!reply) throw new CommandClientError('unreadable', 'the reply is not a command reply');
    return reply;
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
      throw new CommandClientError('not-stored', (error as Error).message, { cause: error });
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
