import { type PacedEngineCommand, type SendQueues, wrongStatusError } from '@switchboard/engine-pod';
import { latestValues, openSendQueuesBucket } from '@switchboard/kube';
import {
  type HostCommand,
  SEND_QUEUE_KEYS,
  SendQueueCancelResult,
  SendQueuePage,
  SendQueueRecord,
  SendQueueSubmitResult,
  type SendingConfig,
} from '@switchboard/protocol';
import type { KV, NatsConnection } from 'nats';
import { ApiError } from '../http/errors.js';
import type { ClusterSessionBackend } from './cluster-backend.js';
import { effectiveStatus } from './messaging-session.js';

export interface ClusterSendQueuesOptions {
  readonly nc: NatsConnection;
  readonly sessions: ClusterSessionBackend;
  /** What an engine pod has beyond a paced send's wait to answer it (the command timeout). */
  readonly marginMs: number;
}

/**
 * Paced sending in cluster mode (docs/api.md "Paced sending"): the session's engine pod owns its
 * queue (engine-pod's SessionSending, in NATS KV `sb_send_queues`), so every call goes to that pod
 * as a host command, on the session's command subject like any command. A paced send waits there
 * up to its wait, so its request waits that long and the command timeout beside it.
 */
export class ClusterSendQueues implements SendQueues {
  private bucket: Promise<KV> | undefined;

  constructor(private readonly options: ClusterSendQueuesOptions) {}

  sendingOf(session: string): SendingConfig | undefined {
    return this.options.sessions.sendingOf(session);
  }

  async submit(session: string, route: string, command: PacedEngineCommand, waitMs: number): Promise<SendQueueSubmitResult> {
    const { reply, resource } = await this.options.sessions.hostCommand(
      session,
      { op: 'host.sendQueue.submit', args: { route, command: command as HostSubmit['args']['command'], waitMs } },
      waitMs + this.options.marginMs,
    );
    // No engine pod: the session is not running, and a paced send is refused as an unpaced one would be.
    if (!reply) throw wrongStatusError(session, effectiveStatus(resource), command.op);
    return SendQueueSubmitResult.parse(reply.result);
  }

  /** From the session's engine pod; without one, read from the bucket it left (what waits for its next start). */
  async list(session: string, page: { limit: number; offset: number }): Promise<SendQueuePage> {
    const { reply } = await this.options.sessions.hostCommand(session, { op: 'host.sendQueue.list', args: page });
    if (reply) return SendQueuePage.parse(reply.result);
    const records = (await latestValues(await this.kv(), SEND_QUEUE_KEYS.allQueued(session), 'send queue'))
      .map((entry) => SendQueueRecord.parse(entry.json()))
      .sort((a, b) => a.seq - b.seq);
    const items = records
      .slice(page.offset, page.offset + page.limit)
      .map(({ id, chatId, route, state, queuedAt }) => ({ id, session, chatId, route, state, queuedAt }));
    return { total: records.length, items };
  }

  /**
   * Only the engine pod writes the queue (it holds the session's lease): with none running, a
   * cancel could cross a pod that starts and sends it, so it is refused until the session runs.
   */
  async cancel(session: string, id: string): Promise<boolean> {
    const { reply, resource } = await this.options.sessions.hostCommand(session, { op: 'host.sendQueue.cancel', args: { id } });
    if (!reply) {
      throw new ApiError(422, `session '${session}' is ${effectiveStatus(resource)}: a queued send can be cancelled while the session runs`, {
        session,
        status: effectiveStatus(resource),
      });
    }
    return SendQueueCancelResult.parse(reply.result).cancelled;
  }

  private kv(): Promise<KV> {
    this.bucket ??= openSendQueuesBucket(this.options.nc).catch((error: unknown) => {
      this.bucket = undefined;
      throw error;
    });
    return this.bucket;
  }
}

type HostSubmit = Extract<HostCommand, { op: 'host.sendQueue.submit' }>;
