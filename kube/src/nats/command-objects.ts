import { randomUUID } from 'node:crypto';
import { COMMAND_OBJECT_HEADER } from '@switchboard/protocol';
import { headers, type MsgHdrs, type NatsConnection } from 'nats';
import { openCommandObjects } from './stores.js';

/** A request names a command object that is not there or not its session's: the command is invalid. */
export class CommandObjectError extends Error {
  override readonly name = 'CommandObjectError';
}

/**
 * Commands too large for one NATS message (a base64 file of more than ~750 KB under NATS's
 * default 1 MB max_payload). The gateway puts the command's JSON in the session's own bucket
 * (`OBJECT_STORES.commands(session)`, created when missing) and sends the request with a header
 * naming the object and no body; the session's engine pod reads it, deletes it and runs it. The
 * pod's NATS user may read and delete in its own session's bucket only. Local mode never needs
 * this: its commands are calls. Each call binds anew (one stream info): large commands are rare,
 * and a bucket a session delete dropped is made again rather than written to in vain.
 */
export class CommandObjects {
  constructor(private readonly nc: NatsConnection) {}

  /** Stores one command's JSON; answers the headers its request carries instead of a body. */
  async put(session: string, json: string): Promise<{ name: string; headers: MsgHdrs }> {
    const name = `${session}/${randomUUID()}`;
    await (await openCommandObjects(this.nc, session)).putBlob({ name }, Buffer.from(json));
    const carried = headers();
    carried.set(COMMAND_OBJECT_HEADER, name);
    return { name, headers: carried };
  }

  /**
   * The JSON of the command a request's headers name, or null when they name none. The object is
   * deleted once read: a command runs once. It must be this session's: a pod reads no other's.
   */
  async take(session: string, carried: MsgHdrs | undefined): Promise<string | null> {
    const name = carried?.get(COMMAND_OBJECT_HEADER);
    if (!name) return null;
    if (!name.startsWith(`${session}/`)) {
      throw new CommandObjectError(`command object '${name}' is not one of session '${session}'`);
    }
    const store = await openCommandObjects(this.nc, session);
    const data = await store.getBlob(name);
    if (!data) throw new CommandObjectError(`command object '${name}' is gone (expired, or taken already)`);
    await store.delete(name).catch(() => undefined);
    return Buffer.from(data).toString('utf8');
  }

  /** Best effort: the bucket's TTL removes whatever this misses. */
  async remove(session: string, name: string): Promise<void> {
    await (await openCommandObjects(this.nc, session)).delete(name).catch(() => undefined);
  }
}
