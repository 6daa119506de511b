/**
 * How many of something each API key has open at once (its /ws connections, its media
 * conversions): what a per-key bound reads. A key with none is forgotten, so the map holds only
 * the keys in use.
 */
export class OpenPerKey {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  open(key: string): void {
    this.counts.set(key, this.of(key) + 1);
  }

  close(key: string): void {
    const left = this.of(key) - 1;
    if (left <= 0) this.counts.delete(key);
    else this.counts.set(key, left);
  }

  clear(): void {
    this.counts.clear();
  }
}
