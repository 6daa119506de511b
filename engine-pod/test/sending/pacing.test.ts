import { SendingConfig } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dailyCap, drawPause, MINUTE_MS, nextSlot, type PacingState, pickNext, typingMs } from '../../src/sending/pacing.js';

/** The pacing rules on a clock the test sets: every time below is a number the test chose. */
const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const config = (sending: Record<string, unknown>) => SendingConfig.parse(sending);
const state = (over: Partial<PacingState> = {}): PacingState => ({ now: T0, sent: [], pairedAt: T0 - 30 * DAY_MS, pausedUntil: 0, ...over });
const sends = (chatId: string, ...ats: number[]) => ats.map((at) => ({ at, chatId }));

/** A seeded source in [0, 1) (mulberry32), so draws repeat from run to run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the per-minute limits', () => {
  it('lets a send go at once while the session is under its limit', () => {
    expect(nextSlot(config({ perMinute: 3 }), state({ sent: sends('a@c.us', T0 - 10_000, T0 - 5_000) }), 'a@c.us')).toEqual({ at: T0, heldBy: null });
  });

  it('holds a send at the limit until the oldest send of the window is a minute old', () => {
    const sent = sends('a@c.us', T0 - 50_000, T0 - 20_000, T0 - 1_000);
    expect(nextSlot(config({ perMinute: 3 }), state({ sent }), 'b@c.us')).toEqual({ at: T0 - 50_000 + MINUTE_MS, heldBy: 'rate' });
  });

  it('ignores sends older than a minute', () => {
    const sent = sends('a@c.us', T0 - 90_000, T0 - 61_000, T0 - 1_000);
    expect(nextSlot(config({ perMinute: 2 }), state({ sent }), 'a@c.us').at).toBe(T0);
  });

  it('holds a chat at its own limit while another chat may go', () => {
    const c = config({ perChatPerMinute: 1 });
    const s = state({ sent: sends('a@c.us', T0 - 15_000) });
    expect(nextSlot(c, s, 'a@c.us')).toEqual({ at: T0 + 45_000, heldBy: 'rate' });
    expect(nextSlot(c, s, 'b@c.us')).toEqual({ at: T0, heldBy: null });
  });

  it('waits for the pause drawn after the last send', () => {
    expect(nextSlot(config({}), state({ pausedUntil: T0 + 2_500 }), 'a@c.us')).toEqual({ at: T0 + 2_500, heldBy: 'rate' });
  });
});

describe('the random pause', () => {
  it('is drawn within the range, the same for the same seed', () => {
    const c = config({ delay: { minMs: 1000, maxMs: 3000 } });
    const random = seeded(7);
    const draws = Array.from({ length: 50 }, () => drawPause(c, random));
    expect(draws.every((ms) => ms >= 1000 && ms <= 3000)).toBe(true);
    expect(new Set(draws).size).toBeGreaterThan(10);
    const again = seeded(7);
    expect(Array.from({ length: 50 }, () => drawPause(c, again))).toEqual(draws);
  });

  it('is the bounds themselves at the ends of the source', () => {
    const c = config({ delay: { minMs: 200, maxMs: 400 } });
    expect(drawPause(c, () => 0)).toBe(200);
    expect(drawPause(c, () => 0.999999)).toBe(400);
    expect(drawPause(config({}), () => 0.5)).toBe(0);
  });
});

describe('the warm-up', () => {
  const warmup = { start: 10, step: 5, max: 30 };

  it('rises by step each day from the pairing, up to max', () => {
    expect([0, 1, 2, 3, 4, 10].map((day) => dailyCap(warmup, day))).toEqual([10, 15, 20, 25, 30, 30]);
  });

  it('holds sends past the day cap until the next day from the pairing', () => {
    const pairedAt = T0 - 2 * 60 * 60_000;
    const sent = Array.from({ length: 10 }, (_, i) => ({ at: pairedAt + i * 60_000, chatId: `c${i}@c.us` }));
    expect(nextSlot(config({ warmup }), state({ pairedAt, sent }), 'x@c.us')).toEqual({ at: pairedAt + DAY_MS, heldBy: 'warmup' });
  });

  it('counts only the current day: a day later the cap has risen and yesterday is forgotten', () => {
    const pairedAt = T0 - DAY_MS - 60_000;
    const yesterday = Array.from({ length: 10 }, (_, i) => ({ at: pairedAt + i * 1000, chatId: 'a@c.us' }));
    const today = Array.from({ length: 14 }, (_, i) => ({ at: pairedAt + DAY_MS + i * 1000, chatId: 'b@c.us' }));
    expect(nextSlot(config({ warmup }), state({ pairedAt, sent: [...yesterday, ...today] }), 'a@c.us').at).toBe(T0);
    const fifteen = [...today, { at: pairedAt + DAY_MS + 30_000, chatId: 'b@c.us' }];
    expect(nextSlot(config({ warmup }), state({ pairedAt, sent: fifteen }), 'a@c.us')).toEqual({ at: pairedAt + 2 * DAY_MS, heldBy: 'warmup' });
  });

  it('counts an account whose pairing is not known from its first send known: its first day', () => {
    const sent = sends('a@c.us', ...Array.from({ length: 10 }, (_, i) => T0 - i));
    expect(nextSlot(config({ warmup }), state({ pairedAt: null, sent }), 'a@c.us')).toEqual({ at: T0 - 9 + DAY_MS, heldBy: 'warmup' });
    expect(nextSlot(config({ warmup }), state({ pairedAt: null }), 'a@c.us')).toEqual({ at: T0, heldBy: null });
  });

  it('names the warm-up when both hold a send and the day cap is the later', () => {
    const pairedAt = T0 - 1000;
    const sent = sends('a@c.us', ...Array.from({ length: 10 }, (_, i) => T0 - i));
    expect(nextSlot(config({ warmup, perMinute: 1 }), state({ pairedAt, sent }), 'a@c.us').heldBy).toBe('warmup');
  });
});

describe('which send goes next', () => {
  it('keeps order within a chat and lets another chat go while one is held', () => {
    const waiting = [
      { id: '1', chatId: 'a@c.us' },
      { id: '2', chatId: 'a@c.us' },
      { id: '3', chatId: 'b@c.us' },
    ];
    const c = config({ perChatPerMinute: 1 });
    expect(pickNext(c, state({ sent: sends('a@c.us', T0 - 1000) }), waiting)?.send.id).toBe('3');
    expect(pickNext(c, state(), waiting)?.send.id).toBe('1');
    expect(pickNext(c, state(), [])).toBeNull();
  });
});

describe('typing before a text', () => {
  it('grows with the text and stays within its bounds', () => {
    const typing = config({ typing: { msPerChar: 40, minMs: 500, maxMs: 4000 } }).typing!;
    expect(typingMs(typing, 'hi')).toBe(500);
    expect(typingMs(typing, 'x'.repeat(50))).toBe(2000);
    expect(typingMs(typing, 'x'.repeat(5000))).toBe(4000);
  });
});
