import { eventMatchesSubject, isSilenceReason, MeInfo, resourceNameFor, SessionStatusPayload, SUBJECTS } from '@switchboard/protocol';
import type { NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';
import { z } from 'zod';
import { sendHostCommand } from './engine-commands.js';
import type { EngineReport } from './reconcile/status.js';

/** The part of a `session.status` envelope (spec 2.4) the operator reads. */
const StatusEnvelope = z.object({
  session: z.string().min(1),
  timestamp: z.number(),
  event: z.literal('session.status'),
  payload: SessionStatusPayload,
  me: MeInfo.optional(),
});

/** The result of `host.status`. */
const HostStatus = z.object({
  status: SessionStatusPayload.shape.status,
  statuses: SessionStatusPayload.shape.statuses,
  me: MeInfo.nullable().optional(),
  reason: SessionStatusPayload.shape.reason,
  versions: SessionStatusPayload.shape.versions,
});

export interface StoredReport extends EngineReport {
  /** When the engine reported it (its latest status point), to drop reports that arrive late. */
  readonly at: number;
}

/**
 * The latest status each engine reported, kept in memory: engines publish every status change
 * as a `session.status` event on NATS, and the operator asks `host.status` when it has none
 * for a running pod (at start, or after it missed events). Each report enqueues the session's
 * resource, so the reconcile that writes the status reads this store, never the event itself.
 */
export class EngineStatusStore {
  private readonly reports = new Map<string, StoredReport>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly onReport: (session: string) => void,
    private readonly log: Logger,
    /** Counts status events dropped because their body names another session than their subject. */
    private readonly forged: { forgedEventDropped(): void },
  ) {}

  start(): void {
    const subscription = this.nc.subscribe(SUBJECTS.statusEvents);
    this.subscription = subscription;
    void (async () => {
      for await (const message of subscription) this.receive(message.subject, message.string());
    })();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  get(session: string): EngineReport | null {
    return this.reports.get(session) ?? null;
  }

  /** The latest report with when the engine made it (rollouts judge a new pod by reports made after it started). */
  latest(session: string): StoredReport | null {
    return this.reports.get(session) ?? null;
  }

  /** The engine pod is gone: what it said no longer describes the session. */
  forget(session: string): void {
    this.reports.delete(session);
  }

  /** The resource is gone: drop whatever its session's engine said. */
  forgetResource(resourceName: string): void {
    for (const session of this.reports.keys()) {
      if (resourceNameFor(session) === resourceName) this.reports.delete(session);
    }
  }

  /** Asks the session's engine for its status; null when it does not answer in time. */
  async ask(session: string, timeoutMs: number): Promise<EngineReport | null> {
    try {
      const result = HostStatus.parse(await sendHostCommand(this.nc, session, { op: 'host.status' }, timeoutMs));
      const report = {
        status: result.status,
        statuses: result.statuses,
        me: result.me ?? null,
        reason: result.reason ?? null,
        versions: result.versions ?? null,
      };
      this.store(session, { ...report, at: result.statuses.at(-1)?.timestamp ?? 0 });
      return this.get(session);
    } catch (error) {
      this.log.debug({ session, err: error }, 'engine did not answer host.status');
      return null;
    }
  }

  private receive(subject: string, text: string): void {
    let envelope: z.infer<typeof StatusEnvelope>;
    try {
      envelope = StatusEnvelope.parse(JSON.parse(text));
    } catch (error) {
      this.log.warn({ err: error }, 'ignored a session.status event that does not match the envelope of spec 2.4');
      return;
    }
    // NATS permissions tie a pod to its session's subjects, not to what its body says: a status
    // for another session is that pod speaking for it, and must not become the other's status.
    if (!eventMatchesSubject(subject, envelope.session)) {
      this.forged.forgedEventDropped();
      this.log.warn({ subject, claimedSession: envelope.session }, "session.status event's session differs from its subject's; dropped");
      return;
    }
    const { status, statuses, reason, versions } = envelope.payload;
    const at = statuses.at(-1)?.timestamp ?? envelope.timestamp;
    const report = { status, statuses, me: envelope.me ?? null, reason: reason ?? null, versions: versions ?? null, at };
    if (this.store(envelope.session, report)) this.onReport(envelope.session);
  }

  private store(session: string, report: StoredReport): boolean {
    const current = this.reports.get(session);
    if (current && current.at > report.at) return false;
    // A silence is news after the reconnect too: the WORKING that follows it still says so (the
    // EngineConnected condition), until this pod is gone.
    const silence = isSilenceReason(report.reason) ? { at: report.at, reason: report.reason! } : (current?.silence ?? null);
    this.reports.set(session, { ...report, silence });
    return true;
  }
}
