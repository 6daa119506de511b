import { CommandReply, type HostCommand, SUBJECTS } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';

/** A host command that got no useful answer: nobody listening, a timeout, or an error reply. */
export class EngineCommandError extends Error {}

/**
 * Sends a host command to the one engine pod of a session (NATS request/reply on
 * `sb.cmd.<session>`) and returns its result, or throws an error that names the session and op.
 */
export async function sendHostCommand(
  nc: NatsConnection,
  session: string,
  command: HostCommand,
  timeoutMs: number,
): Promise<unknown> {
  let raw: string;
  try {
    const reply = await nc.request(SUBJECTS.command(session), JSON.stringify(command), { timeout: timeoutMs });
    raw = reply.string();
  } catch (error) {
    throw new EngineCommandError(`${command.op} to session '${session}': ${(error as Error).message}`);
  }
  const parsed = CommandReply.safeParse(safeJson(raw));
  if (!parsed.success) throw new EngineCommandError(`${command.op} to session '${session}': the reply is not a command reply`);
  if (!parsed.data.ok) {
    const { code, message } = parsed.data.error;
    throw new EngineCommandError(`${command.op} to session '${session}' failed: ${code}: ${message}`);
  }
  return parsed.data.result;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
