import { CommandClient, CommandClientError } from '@switchboard/kube';
import type { CommandReply, HostCommand } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';

/** A host command that got no useful answer: nobody listening, a timeout, or an error reply. */
export class EngineCommandError extends Error {}

/**
 * Sends a host command to the one engine pod of a session (kube's `CommandClient`: NATS
 * request/reply on `sb.cmd.<session>`) and returns its result, or throws an error that names the
 * session and op.
 */
export async function sendHostCommand(nc: NatsConnection, session: string, command: HostCommand, timeoutMs: number): Promise<unknown> {
  let reply: CommandReply;
  try {
    reply = await new CommandClient(nc).request(session, command, timeoutMs);
  } catch (error) {
    if (!(error instanceof CommandClientError)) throw error;
    throw new EngineCommandError(`${command.op} to session '${session}': ${error.message}`);
  }
  if (!reply.ok) {
    const { code, message } = reply.error;
    throw new EngineCommandError(`${command.op} to session '${session}' failed: ${code}: ${message}`);
  }
  return reply.result;
}
