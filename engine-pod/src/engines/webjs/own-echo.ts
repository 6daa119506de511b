import type { WebjsClientEvents, WebjsEventName } from './webjs-client.js';

interface Waiter {
  readonly event: WebjsEventName;
  readonly match: (args: readonly unknown[]) => boolean;
  readonly resolve: (args: readonly unknown[]) => void;
}

/** An event waited for; `within` gives up after `ms`. */
export interface Echo<A> {
  within(ms: number, what: string): Promise<A>;
  cancel(): void;
}

/**
 * Some library actions resolve with nothing and report what they made as a client event only:
 * `Message.forward` (the copy, `message_create`), `Client.sendReaction` (the reaction,
 * `message_reaction`). The action waits for that event here; the event it matched is claimed,
 * so the engine answers and emits it as the action's own (source `api`) instead of as news from
 * the phone. Expect before acting: the browser may report it before the action resolves.
 */
export class OwnEchoes {
  private readonly waiting = new Set<Waiter>();

  expect<E extends WebjsEventName>(event: E, match: (...args: WebjsClientEvents[E]) => boolean): Echo<WebjsClientEvents[E]> {
    let resolve!: (args: readonly unknown[]) => void;
    const seen = new Promise<readonly unknown[]>((done) => (resolve = done));
    const waiter: Waiter = { event, match: (args) => match(...(args as WebjsClientEvents[E])), resolve };
    this.waiting.add(waiter);
    const cancel = () => this.waiting.delete(waiter);
    return {
      cancel,
      within: async (ms, what) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`WhatsApp Web did not report ${what} within ${ms / 1000} s`)), ms);
        });
        try {
          return (await Promise.race([seen, late])) as WebjsClientEvents[E];
        } finally {
          clearTimeout(timer);
          cancel();
        }
      },
    };
  }

  /** True when a waiting action claimed the event. */
  offer(event: WebjsEventName, args: readonly unknown[]): boolean {
    for (const waiter of this.waiting) {
      if (waiter.event !== event || !waiter.match(args)) continue;
      this.waiting.delete(waiter);
      waiter.resolve(args);
      return true;
    }
    return false;
  }
}
