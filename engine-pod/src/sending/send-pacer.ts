import { randomInt } from 'node:crypto';
import type { EngineCommand, QueuedSend, QueueFullDetails, SendingConfig, SendQueuePage, SendQueueSubmitResult } from '@switchboard/protocol';
import { CommandError } from '../command-error.js';
import { DAY_MS, drawPause, type HoldReason, type PacingState, pickNext, typingMs } from './pacing.js';
import type { QueuedSendRow, SendQueueStore } from './send-queue-store.js';

/** Told of what the queues do: the metrics (local mode: GatewayMetrics `held`, `waited`; cluster mode: the engine pod's). */
export interface SendQueueObserver {
  held(session: string, reason: HoldReason): void;
  /** A send went out after waiting this long in the queue. */
  waited(session: string, waitedMs: number): void;
}

export interface SendPacerOptions {
  readonly store: SendQueueStore;
  /** Runs an engine command of the session (the session backend's `command`). */
  readonly execute: (session: string, command: EngineCommand) => Promise<unknown>;
  /** The session's `sending` config now; undefined: off (what is queued still goes, unpaced). */
  readonly sendingOf: (session: string) => SendingConfig | undefined;
  /** Throws the error an unpaced send would get at once (an operation the session's engine cannot do), so it is not queued to fail later. */
  readonly admit?: (session: string, command: EngineCommand) => void;
  /** Whether the engine already sent this message (it is in the history): recovery's question. */
  readonly alreadySent: (session: string, chatId: string, id: string) => Promise<boolean>;
  readonly log: { warn(object: object, message: string): void };
  readonly observer?: SendQueueObserver;
  readonly now?: () => number;
  /** In [0, 1): the random pauses. */
  readonly random?: () => number;
  /** How long a send that failed because the session is not working waits before it is tried again. */
  readonly retryMs?: number;
}

/**
 * What the routes ask of the send queues: this pacer in local mode, the session's engine pod in
 * cluster mode (the gateway's forwarding to `host.sendQueue.*`). `sendingOf` is read on every send,
 * from what the gateway already holds: the session's config.
 */
export interface SendQueues {
  sendingOf(session: string): SendingConfig | undefined;
  submit(session: string, route: string, command: PacedEngineCommand, waitMs: number): Promise<SendQueueSubmitResult>;
  list(session: string, page: { limit: number; offset: number }): Promise<SendQueuePage>;
  cancel(session: string, id: string): Promise<boolean>;
}

/** Engine refusals that pass (the session not working yet, storage held): the send stays queued. */
const PASSING = new Set(['WRONG_STATUS', 'NOT_STORED', 'STORAGE_FULL']);
const NO_SEND_CONFIG: SendingConfig = { maxQueued: Number.MAX_SAFE_INTEGER };
/** How many waiting sends the scheduler looks at to find the first of each chat. */
const LOOKAHEAD = 1000;

interface Waiter {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * Sends each session's queued sends when the pacing rules (pacing.ts) allow, one at a time, in
 * queue order within a chat. One lane per session runs while its queue has sends and sleeps until
 * its next slot, or until a send is added or cancelled.
 */
export class SendPacer implements SendQueues {
  private readonly lanes = new Map<string, { wake: () => void; pausedUntil: number; retrying: boolean; heldFor: Set<string> }>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly now: () => number;
  private readonly random: () => number;
  private stopped = false;
  /** Lanes start only after `recover`: before, a send left `sending` would be passed over. */
  private recovered = false;
  private readonly running = new Set<Promise<void>>();
  /** Ends the typing pauses at once when the pacer stops. */
  private readonly stopping = new Set<() => void>();
  /** Each session's submits, one after another from the count to the add: two cannot both take the last place. */
  private readonly admitting = new Map<string, Promise<unknown>>();

  constructor(private readonly options: SendPacerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32);
  }

  /**
   * After a restart or crash: a send left `sending` went out when its message is in the history,
   * acknowledged by the server (`wentOut`; it is marked sent), else it goes again with the same
   * message id, which the messaging service takes as the same message. Then every queue with sends
   * resumes.
   */
  async recover(): Promise<void> {
    const { store } = this.options;
    for (const send of await store.inFlight()) {
      if (await this.options.alreadySent(send.session, send.chatId, send.id)) {
        await store.markSent(send.session, send.id, { chatId: send.chatId, at: this.now() });
      } else await store.requeue(send.session, send.id);
    }
    this.recovered = true;
    for (const session of await store.sessionsWithSends()) this.poke(session);
  }

  /** The session's `sending` config: its sends are paced when it has one. */
  sendingOf(session: string): SendingConfig | undefined {
    return this.options.sendingOf(session);
  }

  /**
   * Queues a send and waits up to `waitMs` for it to go out. The send goes with its own `id`, or
   * one the engine makes now (as GET new-message-id: a session that is not working answers 422
   * as an unpaced send does). A full queue answers 429, Retry-After when its next send is due.
   */
  async submit(session: string, route: string, command: PacedEngineCommand, waitMs: number): Promise<SendQueueSubmitResult> {
    const config = this.options.sendingOf(session) ?? NO_SEND_CONFIG;
    this.options.admit?.(session, command);
    const id = command.args.id ?? ((await this.options.execute(session, { op: 'account.newMessageId' })) as { id: string }).id;
    const row: QueuedSendRow = {
      id,
      session,
      chatId: command.args.chatId,
      route,
      command: { ...command, args: { ...command.args, id } } as PacedEngineCommand,
      state: 'queued',
      queuedAt: this.now(),
    };
    const outcome = this.outcomeOf(session, id);
    try {
      await this.oneAtATime(session, () => this.add(row, config));
    } catch (error) {
      this.dropWaiter(session, id, outcome.waiter);
      throw error;
    }
    this.poke(session);
    const position = await this.options.store.position(session, id);
    let timer: NodeJS.Timeout | undefined;
    const ranOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
    try {
      const sent = await Promise.race([outcome.promise, ranOut]);
      if (sent !== null) return { outcome: 'sent', result: sent.result };
      this.dropWaiter(session, id, outcome.waiter);
      return { outcome: 'queued', queued: { ...publicRow(row), position: Math.max(0, position) } };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Adds the send unless the queue is full (QUEUE_FULL: the 429) or has its id (CONFLICT: the 409). */
  private async add(row: QueuedSendRow, config: SendingConfig): Promise<void> {
    const { session, id } = row;
    if ((await this.options.store.count(session)) >= config.maxQueued) {
      const details: QueueFullDetails = { session, limit: config.maxQueued, retryAfterSeconds: await this.secondsToNextSend(session, config) };
      throw new CommandError('QUEUE_FULL', `the send queue of session '${session}' is full (${config.maxQueued} sends)`, details);
    }
    if (!(await this.options.store.add(row))) {
      throw new CommandError('CONFLICT', `session '${session}' already has a queued send with id '${id}'`, [
        { path: 'body.id', reason: 'is the id of a send waiting in the queue: choose another one' },
      ]);
    }
  }

  private oneAtATime(session: string, work: () => Promise<void>): Promise<void> {
    const next = (this.admitting.get(session) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    this.admitting.set(session, settled);
    void settled.then(() => {
      if (this.admitting.get(session) === settled) this.admitting.delete(session);
    });
    return next;
  }

  private async secondsToNextSend(session: string, config: SendingConfig): Promise<number> {
    const now = this.now();
    const next = pickNext(config, await this.pacingState(session, now), await this.waiting(session));
    return Math.max(1, Math.ceil(((next?.slot.at ?? now) - now) / 1000));
  }

  private async waiting(session: string): Promise<QueuedSendRow[]> {
    return (await this.options.store.list(session, { limit: LOOKAHEAD, offset: 0 })).filter((send) => send.state === 'queued');
  }

  private async pacingState(session: string, now: number): Promise<PacingState> {
    return {
      now,
      sent: await this.options.store.recentSends(session, now - DAY_MS),
      pairedAt: await this.options.store.pairedAt(session),
      pausedUntil: this.lanes.get(session)?.pausedUntil ?? 0,
    };
  }

  async list(session: string, page: { limit: number; offset: number }): Promise<SendQueuePage> {
    return { total: await this.options.store.count(session), items: (await this.options.store.list(session, page)).map(publicRow) };
  }

  /** Cancels a queued send; false when it is gone, sent or being sent. */
  async cancel(session: string, id: string): Promise<boolean> {
    if (!(await this.options.store.cancel(session, id))) return false;
    this.settle(session, id, (waiter) =>
      waiter.reject(new CommandError('CONFLICT', `send '${id}' of session '${session}' was cancelled before it went out`, { session, id })),
    );
    this.poke(session);
    return true;
  }

  /** Wakes the session's lane (a send added or cancelled, the session working again), starting it if needed. */
  poke(session: string): void {
    if (this.stopped || !this.recovered) return;
    const lane = this.lanes.get(session);
    if (lane) return lane.wake();
    const run = this.run(session)
      // What is queued stays queued: the next send, cancel or start of the session runs the lane again.
      .catch((error: unknown) => this.options.log.warn({ err: error, session }, 'the send queue of a session stopped on an error'))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** The session is working (again): a send waiting to be retried goes now, not after the retry pause. */
  working(session: string): void {
    const lane = this.lanes.get(session);
    if (lane?.retrying) {
      lane.retrying = false;
      lane.pausedUntil = 0;
    }
    this.poke(session);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes.values()) lane.wake();
    for (const end of this.stopping) end();
    await Promise.all(this.running);
  }

  private async run(session: string): Promise<void> {
    let wake = (): void => {};
    const lane = { wake: () => wake(), pausedUntil: 0, retrying: false, heldFor: new Set<string>() };
    this.lanes.set(session, lane);
    try {
      while (!this.stopped) {
        const config = this.options.sendingOf(session) ?? NO_SEND_CONFIG;
        const waiting = await this.waiting(session);
        if (waiting.length === 0) return;
        const now = this.now();
        const next = pickNext(config, await this.pacingState(session, now), waiting)!;
        if (next.slot.at > now) {
          if (next.slot.heldBy && !lane.heldFor.has(`${next.send.id} ${next.slot.heldBy}`)) {
            lane.heldFor.add(`${next.send.id} ${next.slot.heldBy}`);
            this.options.observer?.held(session, next.slot.heldBy);
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, next.slot.at - now);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          continue;
        }
        const outcome = await this.send(session, next.send, config);
        lane.pausedUntil = outcome.pausedUntil;
        lane.retrying = outcome.retrying;
        for (const held of [...lane.heldFor]) if (held.startsWith(`${next.send.id} `)) lane.heldFor.delete(held);
      }
    } finally {
      this.lanes.delete(session);
    }
  }

  /** Sends one, typing first for a text when configured; returns until when the lane pauses, and whether to retry it. */
  private async send(session: string, send: QueuedSendRow, config: SendingConfig): Promise<{ pausedUntil: number; retrying: boolean }> {
    const { store, execute } = this.options;
    await store.markSending(session, send.id);
    try {
      if (config.typing && send.command.op === 'send.text') await this.type(session, send.chatId, typingMs(config.typing, send.command.args.text));
      // Stopped while typing: the send stays `sending`, not in the history, so the next start sends it.
      if (this.stopped) return { pausedUntil: 0, retrying: false };
      const result = await execute(session, send.command);
      const at = this.now();
      await store.markSent(session, send.id, { chatId: send.chatId, at });
      this.options.observer?.waited(session, at - send.queuedAt);
      this.settle(session, send.id, (waiter) => waiter.resolve(result));
      return { pausedUntil: at + drawPause(config, this.random), retrying: false };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && PASSING.has(code)) {
        await store.requeue(session, send.id);
        return { pausedUntil: this.now() + (this.options.retryMs ?? 5000), retrying: true };
      }
      await store.drop(session, send.id);
      this.options.log.warn({ err: error, session, id: send.id, route: send.route }, 'a queued send failed and was dropped');
      this.settle(session, send.id, (waiter) => waiter.reject(error));
      return { pausedUntil: this.now() + drawPause(config, this.random), retrying: false };
    }
  }

  /** Composing presence for `ms`, then paused. A typing indicator that fails does not stop the send. */
  private async type(session: string, chatId: string, ms: number): Promise<void> {
    try {
      await this.options.execute(session, { op: 'chat.typing', args: { chatId, typing: true } });
      await new Promise<void>((resolve) => {
        const end = (): void => {
          clearTimeout(timer);
          this.stopping.delete(end);
          resolve();
        };
        const timer = setTimeout(end, ms);
        this.stopping.add(end);
      });
      await this.options.execute(session, { op: 'chat.typing', args: { chatId, typing: false } });
    } catch (error) {
      this.options.log.warn({ err: error, session, chatId }, 'typing before a queued text failed; the text is sent');
    }
  }

  private outcomeOf(session: string, id: string): { promise: Promise<{ result: unknown }>; waiter: Waiter } {
    let waiter!: Waiter;
    const promise = new Promise<{ result: unknown }>((resolve, reject) => {
      waiter = { resolve: (result) => resolve({ result }), reject };
    });
    const list = this.waiters.get(key(session, id)) ?? [];
    list.push(waiter);
    this.waiters.set(key(session, id), list);
    return { promise, waiter };
  }

  private dropWaiter(session: string, id: string, waiter: Waiter): void {
    const rest = (this.waiters.get(key(session, id)) ?? []).filter((other) => other !== waiter);
    if (rest.length) this.waiters.set(key(session, id), rest);
    else this.waiters.delete(key(session, id));
  }

  private settle(session: string, id: string, tell: (waiter: Waiter) => void): void {
    for (const waiter of this.waiters.get(key(session, id)) ?? []) tell(waiter);
    this.waiters.delete(key(session, id));
  }
}

/** A send the queue takes: one to a chat, whose arguments take a message id (protocol `sendFields`). */
export type PacedEngineCommand = EngineCommand & { readonly args: { readonly chatId: string; readonly id?: string | null | undefined } };

const key = (session: string, id: string): string => `${session}\u0000${id}`;

function publicRow({ id, session, chatId, route, state, queuedAt }: QueuedSendRow): QueuedSend {
  return { id, session, chatId, route, state, queuedAt };
}
