// Package pacing holds the paced-sending rules (issue 32) as pure functions of the time they are
// given: no clock, no timer, no randomness of their own. It is the Go port of
// engine-pod/src/sending/pacing.ts and answers as it does; pacing_test.go holds both to the same
// vectors.
package pacing

import (
	"math"
	"slices"
	"time"
	"unicode/utf8"
)

// Day is one step of the warm-up: 24 hours from the pairing, not a calendar day.
const Day = 24 * time.Hour

// Config is a session's `sending` config (protocol SendingConfig) with its defaults applied.
type Config struct {
	// PerMinute and PerChatPerMinute: the most sends in any 60 seconds; 0 is no limit.
	PerMinute        int
	PerChatPerMinute int
	Delay            *Delay
	Typing           *Typing
	Warmup           *Warmup
	MaxQueued        int
}

// Delay is the range of the random pause drawn after each send.
type Delay struct{ Min, Max time.Duration }

// Typing is how long composing presence shows before a text.
type Typing struct {
	PerChar  time.Duration
	Min, Max time.Duration
}

// Warmup is a new account's daily cap: Start on its first day, Step more each day, at most Max.
type Warmup struct{ Start, Step, Max int }

// Sent is a send that went out: when, and to which chat.
type Sent struct {
	At     time.Time
	ChatID string
}

// State is what the rules look at besides the config.
type State struct {
	Now time.Time
	// Sent holds the session's sends of the last day at least (older ones are ignored), in any order.
	Sent []Sent
	// PairedAt is when the session was paired (the warm-up counts its days from it); zero: not known.
	PairedAt time.Time
	// PausedUntil is the earliest the next send may go after the pause drawn at the last send.
	PausedUntil time.Time
}

// HoldReason says why a send cannot go now; the metric label of sends held.
type HoldReason string

const (
	HeldByRate   HoldReason = "rate"
	HeldByWarmup HoldReason = "warmup"
)

// Slot is when a send may go and, when that is later than now, what holds it.
type Slot struct {
	At     time.Time
	HeldBy HoldReason
}

// NextSlot is when a send to chatID may go: the latest of the pause after the last send, the
// session's and the chat's 60-second windows, and the warm-up's daily cap. Each rule is asked
// again at the time the others give, since a later time may meet one rule and no longer another
// (a new day).
func NextSlot(config Config, state State, chatID string) Slot {
	at := state.Now
	var heldBy HoldReason
	chatSent := sentTo(state.Sent, chatID)
	for round := 0; round < 8; round++ {
		rate := latest(state.PausedUntil, WindowOpensAt(state.Sent, at, config.PerMinute), WindowOpensAt(chatSent, at, config.PerChatPerMinute))
		warm := at
		if config.Warmup != nil {
			warm = WarmupOpensAt(*config.Warmup, state.Sent, pairing(state), latest(at, rate))
		}
		next := latest(at, rate, warm)
		if next.Equal(at) {
			break
		}
		// The warm-up, once it held the send, is what held it: the rest is minutes.
		if warm.After(rate) || heldBy == HeldByWarmup {
			heldBy = HeldByWarmup
		} else {
			heldBy = HeldByRate
		}
		at = next
	}
	if !at.After(state.Now) {
		heldBy = ""
	}
	return Slot{At: at, HeldBy: heldBy}
}

// Pick is the send chosen to go next and its slot.
type Pick[Send any] struct {
	Send Send
	Slot Slot
}

// PickNext says which waiting send goes next, and when: of the first send to each chat (order
// holds within a chat), the one whose slot comes first, the older one on a tie. A chat at its own
// limit does not hold the others back. waiting is in queue order; ok is false when it is empty.
func PickNext[Send any](config Config, state State, waiting []Send, chatOf func(Send) string) (best Pick[Send], ok bool) {
	seen := map[string]bool{}
	for _, send := range waiting {
		chat := chatOf(send)
		if seen[chat] {
			continue
		}
		seen[chat] = true
		slot := NextSlot(config, state, chat)
		if !ok || slot.At.Before(best.Slot.At) {
			best, ok = Pick[Send]{Send: send, Slot: slot}, true
		}
		if slot.At.Equal(state.Now) {
			break
		}
	}
	return best, ok
}

// WindowOpensAt is the earliest time from at on when fewer than limit sends lie in the 60 seconds
// before it; limit 0 is no limit.
func WindowOpensAt(sent []Sent, at time.Time, limit int) time.Time {
	if limit <= 0 {
		return at
	}
	from := at.Add(-time.Minute)
	var inWindow []time.Time
	for _, send := range sent {
		if send.At.After(from) && !send.At.After(at) {
			inWindow = append(inWindow, send.At)
		}
	}
	if len(inWindow) < limit {
		return at
	}
	sortTimes(inWindow)
	// The send that must leave the window for one more to fit.
	return inWindow[len(inWindow)-limit].Add(time.Minute)
}

// DailyCap is the cap of day `day` (0 is the day of the pairing).
func DailyCap(warmup Warmup, day int) int {
	return min(warmup.Max, warmup.Start+warmup.Step*max(0, day))
}

// WarmupOpensAt is the earliest time from at on when the day's sends are under its cap: at, or
// the start of a later day.
func WarmupOpensAt(warmup Warmup, sent []Sent, pairedAt, at time.Time) time.Time {
	// Before the pairing date (a clock set back) counts as its first day.
	day := max(0, int(math.Floor(float64(at.Sub(pairedAt))/float64(Day))))
	dayStart := pairedAt.Add(time.Duration(day) * Day)
	dayEnd := dayStart.Add(Day)
	today := 0
	for _, send := range sent {
		if !send.At.Before(dayStart) && send.At.Before(dayEnd) {
			today++
		}
	}
	if today < DailyCap(warmup, day) {
		return at
	}
	return dayEnd
}

// DrawPause is the random pause after a send: uniform in the configured range, whole
// milliseconds; random is in [0, 1).
func DrawPause(config Config, random func() float64) time.Duration {
	if config.Delay == nil {
		return 0
	}
	minMs, maxMs := config.Delay.Min.Milliseconds(), config.Delay.Max.Milliseconds()
	return time.Duration(minMs+int64(math.Floor(random()*float64(maxMs-minMs+1)))) * time.Millisecond
}

// TypingTime is how long to show typing before a text: its length in characters (code points, as
// the TypeScript side counts them) times the rate, within the bounds.
func TypingTime(typing Typing, text string) time.Duration {
	return min(typing.Max, max(typing.Min, time.Duration(utf8.RuneCountInString(text))*typing.PerChar))
}

// pairing is the pairing date or, when it is not known (paired before this build saw it), the
// first send known, else now: day 0 either way.
func pairing(state State) time.Time {
	if !state.PairedAt.IsZero() {
		return state.PairedAt
	}
	first := state.Now
	for _, send := range state.Sent {
		if send.At.Before(first) {
			first = send.At
		}
	}
	return first
}

func sentTo(sent []Sent, chatID string) []Sent {
	var out []Sent
	for _, send := range sent {
		if send.ChatID == chatID {
			out = append(out, send)
		}
	}
	return out
}

func latest(first time.Time, rest ...time.Time) time.Time {
	for _, t := range rest {
		if t.After(first) {
			first = t
		}
	}
	return first
}

func sortTimes(times []time.Time) {
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
}
