import { CommandObjectError, CommandObjects } from '@switchboard/kube/pod';
import { type CommandReply, type EngineCommand, HostCommand, makesEvents, type SessionCommand, SUBJECTS } from '@switchboard/protocol';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { CommandError } from '../command-error.js';
import type { EngineLog } from '../engine.js';
import type { EngineHost } from '../engine-host.js';
import { parseSessionCommand } from './command-parse.js';
import { type EventBarrier, eventsNotStored } from './event-publisher.js';
import type { SessionSending } from './session-sending.js';

export interface CommandServerOptions {
  readonly nc: NatsConnection;
  readonly session: string;
  readonly host: EngineHost;
  /** The caller's logger, already carrying the session (the pod's does). */
  readonly log: EngineLog;
  /**
   * Where the host's events go (the pod's EventPublisher): an engine command that may make
   * events (`makesEvents`) is answered only once the events queued before its reply are acked,
   * and refused while they cannot be stored; a read is answered at once.
   */
  readonly events?: EventBarrier;
  /** How long a reply waits for those acks before it answers NOT_STORED. */
  readonly storeTimeoutMs?: number;
  /** The session's paced sending (`host.sendQueue.*`), once the pod runs it. */
  readonly sending?: () => SessionSending | null;
}

const HOST_OPS: ReadonlySet<string> = new Set<string>(HostCommand.options.map((option) => option.shape.op.value));
const isHostCommand = (command: SessionCommand): command is HostCommand => HOST_OPS.has(command.op);

/**
 * Cluster mode's command channel: answers NATS requests on `sb.cmd.<session>` with what
 * `EngineHost.execute` answers in local mode, plus the host commands whoever runs the pod
 * needs. Requests are served concurrently, as local mode's direct calls are; lifecycle
 * commands (logout) run one at a time.
 */
export class CommandServer {
  private subscription: Subscription | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private lifecycle: Promise<unknown> = Promise.resolve();
  /** Where commands too large for one message wait (command-objects.ts). */
  private readonly objects: CommandObjects;

  constructor(private readonly options: CommandServerOptions) {
    this.objects = new CommandObjects(options.nc);
  }

  start(): void {
    if (this.subscription) return;
    this.subscription = this.options.nc.subscribe(SUBJECTS.command(this.options.session), {
      callback: (error, msg) => {
        if (error) {
          this.options.log.error({ err: error }, 'command subscription failed');
          return;
        }
        const handling = this.handle(msg).finally(() => this.inFlight.delete(handling));
        this.inFlight.add(handling);
      },
    });
  }

  /** Stops taking commands, then waits for the ones already taken to be answered. */
  async close(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    if (subscription && !subscription.isClosed()) await subscription.drain();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * The reply to one request body (or to the command object its headers name); never throws,
   * every failure becomes a CommandReply.
   */
  async answer(data: string, carried?: Msg['headers']): Promise<CommandReply> {
    try {
      const json = (await this.takeObject(carried)) ?? data;
      const result = await this.run(parseSessionCommand(json));
      return { ok: true, result: result ?? null };
    } catch (error) {
      if (error instanceof CommandError) {
        return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
      }
      this.options.log.error({ err: error }, 'engine command failed');
      // The cause stays in the pod's log: a client gets the code and where to look, nothing internal.
      const message = `the engine of session '${this.options.session}' failed; see its engine pod's log`;
      return { ok: false, error: { code: 'ENGINE_ERROR', message } };
    }
  }

  /** The JSON of the command object a request names; a CommandError INVALID when it is not there or not ours. */
  private async takeObject(carried: Msg['headers']): Promise<string | null> {
    try {
      return await this.objects.take(this.options.session, carried);
    } catch (error) {
      if (error instanceof CommandObjectError) throw new CommandError('INVALID', error.message);
      throw error;
    }
  }

  private async handle(msg: Msg): Promise<void> {
    const reply = await this.answer(msg.string(), msg.headers);
    if (msg.reply) msg.respond(JSON.stringify(reply));
  }

  private run(command: SessionCommand): Promise<unknown> {
    if (!isHostCommand(command)) return this.executeStored(command);
    const host = this.options.host;
    switch (command.op) {
      case 'host.status':
        return Promise.resolve({
          status: host.status,
          statuses: host.statuses,
          me: host.me,
          ...(host.failureReason ? { reason: host.failureReason } : {}),
          ...(host.versions ? { versions: host.versions } : {}),
        });
      case 'host.setMetadata':
        host.setMetadata(command.args.metadata);
        return Promise.resolve(null);
      case 'host.setApps':
        host.setApps(command.args.apps);
        return Promise.resolve(null);
      case 'host.sendQueue.submit':
      case 'host.sendQueue.list':
      case 'host.sendQueue.cancel':
      case 'host.sendQueue.setConfig': {
        const sending = this.options.sending?.();
        if (!sending) {
          const message = `the engine pod of session '${this.options.session}' is not running paced sending yet; try again`;
          return Promise.reject(new CommandError('WRONG_STATUS', message, { session: this.options.session }));
        }
        return sending.run(command);
      }
      case 'host.logout':
        return this.oneAtATime(async () => {
          // Spec part 3, rule 4: the pod exists, so the session is running; it starts again unpaired.
          await host.logout();
          await this.options.sending?.()?.forgetPairing();
          await host.stop();
          await host.start();
          return null;
        });
    }
  }

  /**
   * A 201 means stored: the reply waits for the events the command made (and any queued before
   * them). A read makes none: it neither waits nor is refused while events cannot be stored.
   */
  async executeStored(command: EngineCommand): Promise<unknown> {
    const { events, host } = this.options;
    if (!events || !makesEvents(command.op)) return host.execute(command);
    if (events.failing !== null) throw eventsNotStored(events.failing, false);
    const result = await host.execute(command);
    await events.stored(this.options.storeTimeoutMs ?? 5_000);
    return result;
  }

  private oneAtATime<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.lifecycle.then(operation, operation);
    this.lifecycle = next.catch(() => undefined);
    return next;
  }
}
