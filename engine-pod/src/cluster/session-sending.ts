import { EngineCommand, type EngineName, type HostCommand, type SendingConfig, type SessionStatus } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';
import { CommandError } from '../command-error.js';
import { notSupportedError } from '../command-rules.js';
import type { EngineLog } from '../engine.js';
import type { MessageStore } from '../history/message-store.js';
import { type PacedEngineCommand, SendPacer, type SendQueueObserver } from '../sending/send-pacer.js';
import { wentOut } from '../sending/went-out.js';
import { fieldIssues } from './command-parse.js';
import { NatsSendQueue } from './nats-send-queue.js';

export interface SessionSendingOptions {
  readonly nc: NatsConnection;
  readonly session: string;
  readonly engine: EngineName;
  /** The session's `config.sending` at start (SWITCHBOARD_SENDING); `host.sendQueue.setConfig` changes it. */
  readonly sending: SendingConfig | undefined;
  /** Runs an engine command as a command from the gateway would run (CommandServer's, events stored). */
  readonly execute: (command: EngineCommand) => Promise<unknown>;
  readonly history: MessageStore;
  readonly fencingToken: () => number | null;
  readonly log: EngineLog;
  readonly observer?: SendQueueObserver;
  readonly bind?: boolean;
}

type SendQueueCommand = Extract<HostCommand, { op: `host.sendQueue.${string}` }>;

/**
 * Paced sending of an engine pod's session (cluster mode): the session's queue in NATS KV and the
 * pacer that sends it, started once the pod holds the lease and the queue is read back. A send
 * left `sending` by the pod before is looked up in the history first (`SendPacer.recover`).
 */
export class SessionSending {
  private constructor(
    private readonly options: SessionSendingOptions,
    readonly store: NatsSendQueue,
    private readonly pacer: SendPacer,
    /** The config the pacer reads at each send: what the pod started with, then `setConfig`'s. */
    private readonly current: { config: SendingConfig | undefined },
  ) {}

  static async start(options: SessionSendingOptions): Promise<SessionSending> {
    const { nc, session, engine, log, fencingToken } = options;
    const store = await NatsSendQueue.open(nc, { session, fencingToken, ...(options.bind === undefined ? {} : { bind: options.bind }) });
    const current = { config: options.sending };
    const pacer = new SendPacer({
      store,
      execute: (_session, command) => options.execute(command),
      sendingOf: () => current.config,
      admit: (_session, command) => {
        const refusal = notSupportedError(session, engine, command);
        if (refusal) throw refusal;
      },
      alreadySent: async (_session, chatId, id) => wentOut(await options.history.get(session, chatId, id)),
      log,
      ...(options.observer ? { observer: options.observer } : {}),
    });
    const sending = new SessionSending(options, store, pacer, current);
    await pacer.recover();
    return sending;
  }

  /** The session's status as the host reports it: WORKING is the pairing date (once) and the signal to send. */
  statusChanged(status: SessionStatus): void {
    if (status !== 'WORKING') return;
    const { session, log } = this.options;
    this.store.setPairedAt(session, Date.now()).catch((error: unknown) => log.warn({ err: error }, 'paced sending: the pairing date was not stored'));
    this.pacer.working(session);
  }

  /** A logout: the next pairing is a new account, its warm-up from day 0. */
  forgetPairing(): Promise<void> {
    return this.store.forgetPairing();
  }

  stop(): Promise<void> {
    return this.pacer.stop();
  }

  /** What it paces by now (the start's config, or `setConfig`'s): the next lease term starts from it. */
  get config(): SendingConfig | undefined {
    return this.current.config;
  }

  /** The host commands `host.sendQueue.*` (protocol commands.ts). */
  async run(command: SendQueueCommand): Promise<unknown> {
    const { session } = this.options;
    switch (command.op) {
      case 'host.sendQueue.submit': {
        const { route, waitMs } = command.args;
        return this.pacer.submit(session, route, pacedCommand(command.args.command), waitMs);
      }
      case 'host.sendQueue.list':
        return this.pacer.list(session, command.args);
      case 'host.sendQueue.cancel':
        return { cancelled: await this.pacer.cancel(session, command.args.id) };
      case 'host.sendQueue.setConfig':
        this.current.config = command.args.sending ?? undefined;
        // A rate that became higher lets a waiting send go sooner.
        this.pacer.poke(session);
        return null;
    }
  }
}

/** The wire's `{op, args}` checked as that op's engine command: a bad one is INVALID, naming the fields as a 400 would. */
function pacedCommand(wire: unknown): PacedEngineCommand {
  const parsed = EngineCommand.safeParse(wire);
  if (!parsed.success) {
    const issues = fieldIssues(parsed.error.issues).map((issue) => ({ ...issue, path: `command.${issue.path}` }));
    throw new CommandError('INVALID', `invalid paced command: ${issues.map((i) => `${i.path}: ${i.reason}`).join('; ')}`, { issues });
  }
  return parsed.data as PacedEngineCommand;
}
