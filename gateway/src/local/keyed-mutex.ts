/**
 * Runs tasks one at a time per key, in arrival order. Lifecycle operations on one session
 * (start, stop, logout, delete) must not interleave; operations on different sessions may.
 * Small enough that a dependency would cost more than it saves.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
