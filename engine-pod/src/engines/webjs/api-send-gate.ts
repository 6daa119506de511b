/**
 * Tells messages sent through the API (`message.any` with source `api`) from those sent on the
 * phone (source `app`), and keeps spec 6.2's order: a sent message's `message.any`, then its
 * acks.
 *
 * The library makes up the id of a sent message inside the browser, and the browser may report
 * the new message (`message_create`) and even its first ack before `sendMessage` resolves with
 * that id. So while a send is in flight, events about own messages not yet announced are held.
 * When a send resolves, its message is announced as `api` and the held events about it follow
 * (its echo dropped); the rest are let go, in order, once no send is left in flight: those
 * messages were sent from the phone. A send that hangs holds nothing longer than `maxHoldMs`.
 */
export class ApiSendGate {
  private inFlight = 0;
  private held: HeldEvent[] = [];
  private readonly announced = new RecentKeys(4096);
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly maxHoldMs = 10_000) {}

  /**
   * Runs one send. `keyOf` names the message it made (null if none); `announce` emits its
   * `message.any` with source `api`.
   */
  async send<T>(run: () => Promise<T>, keyOf: (result: T) => string | null, announce: (result: T) => void): Promise<T> {
    this.inFlight++;
    try {
      const result = await run();
      const key = keyOf(result);
      if (key && !this.announced.has(key)) {
        this.announced.add(key);
        announce(result);
      }
      return result;
    } finally {
      this.inFlight--;
      this.release(this.inFlight === 0);
    }
  }

  /** A newly created own message: `announce` emits its `message.any` with source `app`. */
  created(key: string, announce: () => void): void {
    if (this.inFlight > 0 && !this.announced.has(key)) this.hold({ key, kind: 'create', deliver: announce });
    else this.deliver({ key, kind: 'create', deliver: announce });
  }

  /** Anything that must follow an own message's `message.any`, such as its acks. */
  updated(key: string, deliver: () => void): void {
    if (this.inFlight > 0 && !this.announced.has(key)) this.hold({ key, kind: 'update', deliver });
    else deliver();
  }

  /** Stop holding: what is held is dropped. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.held = [];
  }

  private hold(event: HeldEvent): void {
    this.held.push(event);
    this.timer ??= setTimeout(() => this.release(true), this.maxHoldMs);
  }

  /** Lets go of the events whose message is announced by now, or of all of them. */
  private release(all: boolean): void {
    const ready = all ? this.held : this.held.filter((event) => this.announced.has(event.key));
    if (ready.length === 0) return;
    this.held = all ? [] : this.held.filter((event) => !this.announced.has(event.key));
    if (this.held.length === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const event of ready) this.deliver(event);
  }

  /** A create whose message was announced already (the echo of an API send) is dropped. */
  private deliver(event: HeldEvent): void {
    if (event.kind === 'update') return event.deliver();
    if (this.announced.has(event.key)) return;
    this.announced.add(event.key);
    event.deliver();
  }
}

interface HeldEvent {
  readonly key: string;
  readonly kind: 'create' | 'update';
  readonly deliver: () => void;
}

/** The most recent keys, oldest forgotten first. */
class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value as string);
  }
}
