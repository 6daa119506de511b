import { type EventEnvelope, isSilenceReason, SessionStatus } from '@switchboard/protocol';
import { Gauge, type Registry } from 'prom-client';
import { type DeliveryChannel, EventLagHistogram } from './event-lag-histogram.js';
import { ScrapeTimeCounter } from './scrape-time-counter.js';

/** The statuses the status gauge shows, one series each (the interface's five a session passes through). */
const GAUGED_STATUSES = ['STOPPED', 'STARTING', 'SCAN_QR_CODE', 'WORKING', 'FAILED'] as const satisfies readonly SessionStatus[];

/** A session as the status gauge reads it: the session backend's list. */
export interface SessionStatusRow {
  readonly name: string;
  readonly status: string;
}

/**
 * Per-session health (issue 31 §3): when the gateway last heard from a session, its current
 * status, how often a WORKING session lost its connection (reconnects) and how often because the
 * connection went silent (silences), and how late events reach their receivers. All but the
 * status are read from the events themselves, so both modes count alike; the event path only sets
 * numbers in maps, and the registry reads them when scraped. The status gauge reads the sessions
 * as the API lists them, at scrape time (`readStatuses`): a gateway that started after a session's
 * last status change shows it too.
 */
export class SessionHealthMetrics {
  private readonly lastEventAt = new Map<string, number>();
  /** Each session's last status seen in an event: what a STARTING follows (a reconnect after WORKING). */
  private readonly statuses = new Map<string, string>();
  private list: () => Promise<readonly SessionStatusRow[]> = () => Promise.resolve([]);
  private readonly reconnects: ScrapeTimeCounter<'session'>;
  private readonly silences: ScrapeTimeCounter<'session'>;
  private readonly lag: EventLagHistogram;

  constructor(registry: Registry) {
    const { lastEventAt } = this;
    const sessions = () => this.list();
    new Gauge({
      name: 'switchboard_session_last_event_timestamp_seconds',
      help: 'Unix time of the last event the gateway saw from the session',
      labelNames: ['session'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [session, at] of lastEventAt) this.set({ session }, at / 1000);
      },
    });
    new Gauge({
      name: 'switchboard_session_status',
      help: 'The session status: 1 for the current one, 0 for the others',
      labelNames: ['session', 'status'],
      registers: [registry],
      async collect() {
        this.reset();
        // Sessions that cannot be listed now (the API server unreachable) leave the gauge empty for
        // this scrape rather than failing every other metric with it.
        const listed = await sessions().catch(() => []);
        for (const { name: session, status: current } of listed) {
          for (const status of GAUGED_STATUSES) this.set({ session, status }, status === current ? 1 : 0);
        }
      },
    });
    this.reconnects = new ScrapeTimeCounter({
      name: 'switchboard_session_reconnects_total',
      help: 'Times a WORKING session lost its connection and reconnected (WORKING then STARTING)',
      labelNames: ['session'],
      registry,
    });
    this.silences = new ScrapeTimeCounter({
      name: 'switchboard_session_silences_total',
      help: 'Connections found silent (open, nothing received) and reconnected by the engine',
      labelNames: ['session'],
      registry,
    });
    this.lag = new EventLagHistogram(registry);
  }

  /** Where the status gauge reads the sessions from (the session backend's list, every status). */
  readStatuses(list: () => Promise<readonly SessionStatusRow[]>): void {
    this.list = list;
  }

  observeEvent({ session, timestamp, event, payload }: EventEnvelope): void {
    this.lastEventAt.set(session, timestamp);
    if (event !== 'session.status' || typeof payload.status !== 'string') return;
    const previous = this.statuses.get(session);
    this.statuses.set(session, payload.status);
    if (payload.status !== 'STARTING') return;
    if (previous === 'WORKING') this.reconnects.inc(session);
    if (isSilenceReason(payload.reason)) this.silences.inc(session);
  }

  /** An event reached a receiver `lagMs` after the event was made. */
  delivered(session: string, channel: DeliveryChannel, lagMs: number): void {
    this.lag.observe(session, channel, lagMs);
  }

  forgetSession(session: string): void {
    this.lastEventAt.delete(session);
    this.statuses.delete(session);
    this.reconnects.removeWhere('session', session);
    this.silences.removeWhere('session', session);
    this.lag.forgetSession(session);
  }
}
