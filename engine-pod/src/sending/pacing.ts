import type { SendingConfig, TypingConfig, WarmupConfig } from '@switchboard/protocol';

/*
 * The pacing rules (issue 32) as pure functions of the time they are given: no clock, no timer,
 * no randomness of their own. The pacer (send-pacer.ts) asks them, and tests call them with the
 * times and the random source they choose.
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;

/** A send that went out: when, and to which chat. */
export interface SentSend {
  readonly at: number;
  readonly chatId: string;
}

/** What the rules look at besides the config. */
export interface PacingState {
  readonly now: number;
  /** The session's sends of the last day at least (older ones are ignored), in any order. */
  readonly sent: readonly SentSend[];
  /** When the session was paired (the warm-up counts its days from it); null: not known. */
  readonly pairedAt: number | null;
  /** The earliest the next send may go after the random pause drawn at the last send (`drawPause`). */
  readonly pausedUntil: number;
}

/** Why a send cannot go now: the rate limits (pause, per minute) or the warm-up's daily cap. */
export type HoldReason = 'rate' | 'warmup';

export interface Slot {
  readonly at: number;
  /** What holds it, when `at` is later than now. */
  readonly heldBy: HoldReason | null;
}

/**
 * When a send to `chatId` may go: the latest of the pause after the last send, the session's and
 * the chat's 60-second windows, and the warm-up's daily cap. Each rule is asked again at the time
 * the others give, since a later time may meet one rule and no longer another (a new day).
 */
export function nextSlot(config: SendingConfig, state: PacingState, chatId: string): Slot {
  let at = state.now;
  let heldBy: HoldReason | null = null;
  for (let round = 0; round < 8; round++) {
    const rate = Math.max(
      state.pausedUntil,
      windowOpensAt(state.sent, at, config.perMinute),
      windowOpensAt(
        state.sent.filter((send) => send.chatId === chatId),
        at,
        config.perChatPerMinute,
      ),
    );
    const warm = config.warmup ? warmupOpensAt(config.warmup, state.sent, pairingOf(state), Math.max(at, rate)) : at;
    const next = Math.max(at, rate, warm);
    if (next === at) break;
    // The warm-up, once it held the send, is what held it: the rest is minutes.
    heldBy = warm > rate || heldBy === 'warmup' ? 'warmup' : 'rate';
    at = next;
  }
  return { at, heldBy: at > state.now ? heldBy : null };
}

/**
 * Which waiting send goes next, and when: of the first send to each chat (order holds within a
 * chat), the one whose slot comes first, the older one on a tie. A chat at its own limit does not
 * hold the others back. `waiting` is in queue order; null when it is empty.
 */
export function pickNext<Send extends { readonly chatId: string }>(
  config: SendingConfig,
  state: PacingState,
  waiting: readonly Send[],
): { send: Send; slot: Slot } | null {
  const seen = new Set<string>();
  let best: { send: Send; slot: Slot } | null = null;
  for (const send of waiting) {
    if (seen.has(send.chatId)) continue;
    seen.add(send.chatId);
    const slot = nextSlot(config, state, send.chatId);
    if (!best || slot.at < best.slot.at) best = { send, slot };
    if (slot.at === state.now) break;
  }
  return best;
}

/** The pairing date, or when it is not known (paired before this build saw it), the first send known, else now: day 0 either way. */
function pairingOf({ pairedAt, sent, now }: PacingState): number {
  return pairedAt ?? sent.reduce((first, send) => Math.min(first, send.at), now);
}

/** The earliest time from `at` on when fewer than `limit` sends lie in the 60 seconds before it. */
export function windowOpensAt(sent: readonly SentSend[], at: number, limit: number | undefined): number {
  if (limit === undefined) return at;
  const inWindow = sent
    .map((send) => send.at)
    .filter((time) => time > at - MINUTE_MS && time <= at)
    .sort((a, b) => a - b);
  if (inWindow.length < limit) return at;
  // The send that must leave the window for one more to fit.
  return inWindow[inWindow.length - limit]! + MINUTE_MS;
}

/** The cap of day `day` (0 is the day of the pairing). */
export function dailyCap(warmup: WarmupConfig, day: number): number {
  return Math.min(warmup.max, warmup.start + warmup.step * Math.max(0, day));
}

/** The earliest time from `at` on when the day's sends are under its cap: `at`, or the start of a later day. */
export function warmupOpensAt(warmup: WarmupConfig, sent: readonly SentSend[], pairedAt: number, at: number): number {
  // Before the pairing date (a clock set back) counts as its first day.
  const day = Math.max(0, Math.floor((at - pairedAt) / DAY_MS));
  const dayStart = pairedAt + day * DAY_MS;
  const sentToday = sent.filter((send) => send.at >= dayStart && send.at < dayStart + DAY_MS).length;
  return sentToday < dailyCap(warmup, day) ? at : dayStart + DAY_MS;
}

/** The random pause after a send: uniform in the configured range, `random` in [0, 1). */
export function drawPause(config: SendingConfig, random: () => number): number {
  if (!config.delay) return 0;
  const { minMs, maxMs } = config.delay;
  return minMs + Math.floor(random() * (maxMs - minMs + 1));
}

/** How long to show typing before a text: its length times the rate, within the bounds. */
export function typingMs(typing: TypingConfig, text: string): number {
  return Math.min(typing.maxMs, Math.max(typing.minMs, [...text].length * typing.msPerChar));
}
