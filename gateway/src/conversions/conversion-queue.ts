import type { FastifyRequest } from 'fastify';
import { OpenPerKey } from '../auth/open-per-key.js';
import { keyIdOf } from '../auth/principal.js';
import { TooManyRequests } from '../http/errors.js';

/**
 * How many media conversions (ffmpeg, engine-pod/src/media/convert.ts) a gateway holds at once.
 * Each one running takes up to the input's and the output's size in /tmp and several hundred MiB
 * of memory, and each one waiting holds its request's file: so both are bounded, and one key may
 * not take every place (docs/operations.md "Media conversion" sizes a pod from these).
 */
export interface ConversionQueueLimits {
  /** ffmpeg processes at once (SWITCHBOARD_CONVERSIONS_RUNNING). */
  readonly running: number;
  /** Conversions admitted that wait for one of those (SWITCHBOARD_CONVERSIONS_WAITING). */
  readonly waiting: number;
  /** One key's conversions at once, running or waiting (SWITCHBOARD_CONVERSIONS_PER_KEY); admin keys are not limited. */
  readonly perKey: number;
}

export const DEFAULT_CONVERSION_QUEUE: ConversionQueueLimits = { running: 2, waiting: 8, perKey: 2 };

/** What a refused client is told to wait: about what a short voice note or video takes to convert. */
export const CONVERSION_RETRY_AFTER_SECONDS = 5;

/** Who asks: a key's id, and whether it is an admin key (which the per-key bound leaves out). */
export interface ConversionCaller {
  readonly key: string;
  readonly admin: boolean;
}

/** The caller of an authorized request. */
export function callerOf(request: FastifyRequest): ConversionCaller {
  const principal = request.principal!;
  return { key: keyIdOf(principal), admin: principal.kind === 'admin' };
}

/**
 * A conversion's place covers all its work, the download of a file given by url included, so a
 * waiting one holds only its request's body. Places are given in the order asked. A request
 * beyond a bound is refused at once (429 with Retry-After), before any work.
 */
export class ConversionQueue {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  private readonly byKey = new OpenPerKey();

  constructor(readonly limits: ConversionQueueLimits = DEFAULT_CONVERSION_QUEUE) {}

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(caller: ConversionCaller, work: () => Promise<T>): Promise<T> {
    this.admit(caller);
    this.byKey.open(caller.key);
    try {
      await this.turn();
      try {
        return await work();
      } finally {
        this.release();
      }
    } finally {
      this.byKey.close(caller.key);
    }
  }

  private admit({ key, admin }: ConversionCaller): void {
    const { running, waiting, perKey } = this.limits;
    const mine = this.byKey.of(key);
    if (!admin && mine >= perKey) {
      throw new TooManyRequests(
        `this key has ${mine} media conversions under way, the most one key may have (SWITCHBOARD_CONVERSIONS_PER_KEY=${perKey}); ` +
          'send the next when one has been answered',
        CONVERSION_RETRY_AFTER_SECONDS,
        { limit: 'perKey', perKey },
      );
    }
    if (this.active >= running && this.queue.length >= waiting) {
      throw new TooManyRequests(
        `this gateway is converting ${running} files and ${waiting} more are waiting, the most it holds ` +
          `(SWITCHBOARD_CONVERSIONS_RUNNING=${running}, SWITCHBOARD_CONVERSIONS_WAITING=${waiting}); try again in ${CONVERSION_RETRY_AFTER_SECONDS} s`,
        CONVERSION_RETRY_AFTER_SECONDS,
        { limit: 'queue', running, waiting },
      );
    }
  }

  private async turn(): Promise<void> {
    if (this.active < this.limits.running) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  /** The place goes to the next one waiting as it is, or is given back. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}
