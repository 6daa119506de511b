import type { WriteBatch } from '../store/write-batch.js';
import type { DeliveryRow, WebhookOutbox } from './outbox.js';

export interface Delivered {
  readonly row: DeliveryRow;
  /** From when the event was queued to its 2xx answer. */
  readonly latencyMs: number;
}

export interface DeliveredRowsOptions {
  readonly outbox: Pick<WebhookOutbox, 'markDelivered'>;
  /** How long delivered rows may wait to be cleared together. */
  readonly clearEveryMs: number;
  /** The fan-out's group commit, whose next transaction may take the cursor moves along. */
  readonly writes?: Pick<WriteBatch, 'onCommitting' | 'onSettled'>;
  /** Their clearing is committed: now they count as delivered. */
  readonly cleared: (delivered: readonly Delivered[]) => void;
  /** Their clearing failed: they are still pending in the outbox, and will be sent again. */
  readonly notCleared: (delivered: readonly Delivered[], error: unknown) => void;
}

/**
 * The delivered rows not cleared from the outbox yet: each queue's cursor not moved past them (an
 * entry not deleted). They are cleared together rather than one commit each (a commit costs about
 * as much as a delivery), one UPDATE per queue however many rows: in the write batch's next
 * transaction when one comes within `clearEveryMs`, which costs no commit of its own, else in a
 * transaction of their own then. Until then a crash leaves them pending, to be sent again (at
 * least once).
 */
export class DeliveredRows {
  private waiting: Delivered[] = [];
  /** Deleted in the transaction of the write batch now committing; cleared once it has. */
  private joined: Delivered[] | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: DeliveredRowsOptions) {
    options.writes?.onCommitting(() => this.joinBatch());
    options.writes?.onSettled((committed) => this.batchSettled(committed));
  }

  add(delivered: Delivered): void {
    this.waiting.push(delivered);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.options.clearEveryMs).unref();
  }

  /** Clears the rows waiting, now, in a transaction of their own. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const delivered = this.waiting;
    this.waiting = [];
    try {
      this.options.outbox.markDelivered(delivered.map(({ row }) => row));
    } catch (error) {
      this.options.notCleared(delivered, error);
      return;
    }
    this.options.cleared(delivered);
  }

  /** In the write batch's transaction, before its COMMIT. */
  private joinBatch(): void {
    if (this.waiting.length === 0 || this.joined !== null) return;
    try {
      this.options.outbox.markDelivered(this.waiting.map(({ row }) => row));
    } catch {
      // Left to the statement of their own, which reports a failure.
      return;
    }
    this.joined = this.waiting;
    this.waiting = [];
  }

  private batchSettled(committed: boolean): void {
    const joined = this.joined;
    if (joined === null) return;
    this.joined = null;
    if (committed) {
      this.options.cleared(joined);
      return;
    }
    // Rolled back with the batch: still pending, still delivered, so cleared by the next try.
    for (const delivered of joined) this.add(delivered);
  }
}
