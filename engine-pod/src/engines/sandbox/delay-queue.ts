/**
 * Runs callbacks after a fixed delay, in order, on one timer. The sandbox acknowledges every
 * sent message twice; a timer per acknowledgement cost more than the acknowledgement itself
 * at thousands of messages per second. With one fixed delay, due times arrive in order, so a
 * FIFO drained by a single timer is exact.
 */
export class DelayQueue {
  private readonly due: number[] = [];
  private readonly tasks: (() => void)[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly delayMs: number) {}

  push(task: () => void): void {
    this.due.push(Date.now() + this.delayMs);
    this.tasks.push(task);
    if (!this.timer) this.arm(this.delayMs);
  }

  /** Runs every task still waiting, now, in order; then the queue is empty. */
  runAll(): void {
    const tasks = this.tasks.slice(this.head);
    this.clear();
    for (const task of tasks) task();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.due.length = 0;
    this.tasks.length = 0;
    this.head = 0;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.drain(), Math.max(0, ms));
  }

  private drain(): void {
    this.timer = null;
    const now = Date.now();
    while (this.head < this.tasks.length && this.due[this.head]! <= now) {
      const task = this.tasks[this.head]!;
      this.head++;
      task();
    }
    if (this.head === this.tasks.length) {
      this.due.length = 0;
      this.tasks.length = 0;
      this.head = 0;
    } else {
      if (this.head > 1024) {
        this.due.splice(0, this.head);
        this.tasks.splice(0, this.head);
        this.head = 0;
      }
      this.arm(this.due[this.head]! - now);
    }
  }
}
