// The load the chaos tier keeps up through every fault: sendText round-robin over the sessions at
// a steady rate through the gateway (kubectl port-forward, as a client outside the cluster), with
// a bounded number in flight. A send whose 201 came back is acknowledged: its message.any must
// reach the webhook receiver, whatever fails afterwards. A send that failed (the forward broke,
// the gateway or engine was down: 5xx or no answer) was never acknowledged and is only counted.
import type { ApiCall } from '@switchboard/testkit';

export interface LoadSession {
  readonly name: string;
  readonly engine: string;
  /** Where its messages go (a contact the fake server knows, for the real protocol engines). */
  readonly chatId: string;
}

export interface Acked {
  readonly session: string;
  /** When the send was made (its webhook may come before its 201 does). */
  readonly sentAt: number;
  /** When its 201 came back. */
  readonly at: number;
}

export class LoadDriver {
  /** message id -> the acknowledged send. */
  readonly acked = new Map<string, Acked>();
  failed = 0;
  /** The last failure's text, for a report. */
  lastError = '';
  private running = false;
  private inFlight = 0;
  private next = 0;
  private loop: Promise<void> | null = null;
  startedAt = 0;

  constructor(
    private readonly api: ApiCall,
    private readonly sessions: readonly LoadSession[],
    private readonly perSecond = 50,
    private readonly maxInFlight = 64,
  ) {}

  start(): void {
    this.running = true;
    this.startedAt = Date.now();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 50));
  }

  /** Sends acknowledged per second since start. */
  rate(): number {
    return (this.acked.size * 1000) / Math.max(1, Date.now() - this.startedAt);
  }

  /** The last time a send was acknowledged. */
  lastAckAt = 0;

  private async run(): Promise<void> {
    // Paced by the clock, not by answers: a stall does not lower the rate asked for afterwards,
    // but no more than maxInFlight are waiting at once (what a real client's pool does).
    const interval = 1000 / this.perSecond;
    let due = Date.now();
    while (this.running) {
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      due = Math.max(due + interval, Date.now() - 1000);
      if (this.inFlight >= this.maxInFlight) continue;
      const session = this.sessions[this.next++ % this.sessions.length]!;
      this.inFlight++;
      void this.send(session).finally(() => this.inFlight--);
    }
  }

  private async send(session: LoadSession): Promise<void> {
    const sentAt = Date.now();
    try {
      const res = await this.api('POST', '/api/sendText', { session: session.name, chatId: session.chatId, text: `load ${this.next}` });
      if (res.status === 201 && typeof res.body?.id === 'string') {
        this.acked.set(res.body.id as string, { session: session.name, sentAt, at: Date.now() });
        this.lastAckAt = Date.now();
      } else {
        this.failed++;
        this.lastError = `${session.name}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      }
    } catch (error) {
      this.failed++;
      this.lastError = `${session.name}: ${String(error).slice(0, 200)}`;
    }
  }
}
