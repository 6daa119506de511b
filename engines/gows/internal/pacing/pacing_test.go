package pacing

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The vectors of engine-pod/test/sending/pacing.test.ts, on the same clock the test sets: both
// implementations give the same answers.
var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func sends(chatID string, ats ...time.Time) []Sent {
	out := make([]Sent, len(ats))
	for i, at := range ats {
		out[i] = Sent{At: at, ChatID: chatID}
	}
	return out
}

func stateWith(sent []Sent) State { return State{Now: t0, Sent: sent, PairedAt: t0.Add(-30 * Day)} }

var warmup = &Warmup{Start: 10, Step: 5, Max: 30}

func TestNextSlot(t *testing.T) {
	pairedTwoHoursAgo := t0.Add(-2 * time.Hour)
	tenFromPairing := make([]Sent, 10)
	for i := range tenFromPairing {
		tenFromPairing[i] = Sent{At: pairedTwoHoursAgo.Add(time.Duration(i) * time.Minute), ChatID: fmt.Sprintf("c%d@c.us", i)}
	}
	pairedADayAgo := t0.Add(-Day - time.Minute)
	var yesterday, today []Sent
	for i := range 10 {
		yesterday = append(yesterday, Sent{At: pairedADayAgo.Add(ms(int64(i) * 1000)), ChatID: "a@c.us"})
	}
	for i := range 14 {
		today = append(today, Sent{At: pairedADayAgo.Add(Day + ms(int64(i)*1000)), ChatID: "b@c.us"})
	}
	fifteen := append(append([]Sent{}, today...), Sent{At: pairedADayAgo.Add(Day + 30*time.Second), ChatID: "b@c.us"})
	var lastTen []Sent
	for i := range 10 {
		lastTen = append(lastTen, Sent{At: t0.Add(-ms(int64(i))), ChatID: "a@c.us"})
	}

	cases := []struct {
		rule   string
		config Config
		state  State
		chatID string
		want   Slot
	}{
		{"a send goes at once while the session is under its limit", Config{PerMinute: 3},
			stateWith(sends("a@c.us", t0.Add(-10*time.Second), t0.Add(-5*time.Second))), "a@c.us", Slot{At: t0}},
		{"a send at the limit waits until the oldest send of the window is a minute old", Config{PerMinute: 3},
			stateWith(sends("a@c.us", t0.Add(-50*time.Second), t0.Add(-20*time.Second), t0.Add(-time.Second))), "b@c.us",
			Slot{At: t0.Add(-50*time.Second + time.Minute), HeldBy: HeldByRate}},
		{"sends older than a minute are ignored", Config{PerMinute: 2},
			stateWith(sends("a@c.us", t0.Add(-90*time.Second), t0.Add(-61*time.Second), t0.Add(-time.Second))), "a@c.us", Slot{At: t0}},
		{"a chat at its own limit is held", Config{PerChatPerMinute: 1},
			stateWith(sends("a@c.us", t0.Add(-15*time.Second))), "a@c.us", Slot{At: t0.Add(45 * time.Second), HeldBy: HeldByRate}},
		{"another chat may go while one is at its limit", Config{PerChatPerMinute: 1},
			stateWith(sends("a@c.us", t0.Add(-15*time.Second))), "b@c.us", Slot{At: t0}},
		{"a send waits for the pause drawn after the last send", Config{},
			State{Now: t0, PairedAt: t0.Add(-30 * Day), PausedUntil: t0.Add(2500 * time.Millisecond)}, "a@c.us",
			Slot{At: t0.Add(2500 * time.Millisecond), HeldBy: HeldByRate}},
		{"sends past the day cap wait for the next day from the pairing", Config{Warmup: warmup},
			State{Now: t0, Sent: tenFromPairing, PairedAt: pairedTwoHoursAgo}, "x@c.us",
			Slot{At: pairedTwoHoursAgo.Add(Day), HeldBy: HeldByWarmup}},
		{"a day later the cap has risen and yesterday is forgotten", Config{Warmup: warmup},
			State{Now: t0, Sent: append(append([]Sent{}, yesterday...), today...), PairedAt: pairedADayAgo}, "a@c.us", Slot{At: t0}},
		{"the risen cap, once met, holds until the day after", Config{Warmup: warmup},
			State{Now: t0, Sent: fifteen, PairedAt: pairedADayAgo}, "a@c.us", Slot{At: pairedADayAgo.Add(2 * Day), HeldBy: HeldByWarmup}},
		{"an account whose pairing is not known counts from its first send known", Config{Warmup: warmup},
			State{Now: t0, Sent: lastTen}, "a@c.us", Slot{At: t0.Add(-ms(9) + Day), HeldBy: HeldByWarmup}},
		{"an account with no pairing and no sends is on its first day", Config{Warmup: warmup},
			State{Now: t0}, "a@c.us", Slot{At: t0}},
		{"the warm-up is named when both hold a send and the day cap is the later", Config{Warmup: warmup, PerMinute: 1},
			State{Now: t0, Sent: lastTen, PairedAt: t0.Add(-time.Second)}, "a@c.us", Slot{At: t0.Add(-time.Second + Day), HeldBy: HeldByWarmup}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			got := NextSlot(c.config, c.state, c.chatID)
			if !got.At.Equal(c.want.At) || got.HeldBy != c.want.HeldBy {
				t.Fatalf("NextSlot = {%v %q}, want {%v %q}", got.At, got.HeldBy, c.want.At, c.want.HeldBy)
			}
		})
	}
}

func TestDailyCapRisesByStepUpToMax(t *testing.T) {
	for day, want := range map[int]int{0: 10, 1: 15, 2: 20, 3: 25, 4: 30, 10: 30, -1: 10} {
		if got := DailyCap(*warmup, day); got != want {
			t.Errorf("DailyCap(day %d) = %d, want %d", day, got, want)
		}
	}
}

type queued struct{ id, chatID string }

func TestPickNextKeepsOrderWithinAChatAndLetsAnotherChatGo(t *testing.T) {
	waiting := []queued{{"1", "a@c.us"}, {"2", "a@c.us"}, {"3", "b@c.us"}}
	chatOf := func(send queued) string { return send.chatID }
	config := Config{PerChatPerMinute: 1}
	if got, _ := PickNext(config, stateWith(sends("a@c.us", t0.Add(-time.Second))), waiting, chatOf); got.Send.id != "3" {
		t.Errorf("with chat a at its limit: picked %q, want 3", got.Send.id)
	}
	if got, _ := PickNext(config, stateWith(nil), waiting, chatOf); got.Send.id != "1" {
		t.Errorf("with no limit met: picked %q, want 1 (queue order)", got.Send.id)
	}
	if _, ok := PickNext(config, stateWith(nil), []queued{}, chatOf); ok {
		t.Error("an empty queue picked a send")
	}
	// Both chats held: the one whose slot comes first, not the first in the queue.
	held := stateWith(append(sends("a@c.us", t0.Add(-10*time.Second)), sends("b@c.us", t0.Add(-50*time.Second))...))
	if got, _ := PickNext(config, held, waiting, chatOf); got.Send.id != "3" || !got.Slot.At.Equal(t0.Add(10*time.Second)) {
		t.Errorf("both chats held: picked %q at %v, want 3 at t0+10s", got.Send.id, got.Slot.At)
	}
}

// seeded is mulberry32, as the TypeScript test seeds its draws.
func seeded(seed uint32) func() float64 {
	a := seed
	return func() float64 {
		a += 0x6d2b79f5
		t := (a ^ (a >> 15)) * (1 | a)
		t = (t + (t^(t>>7))*(61|t)) ^ t
		return float64(t^(t>>14)) / 4294967296
	}
}

func TestDrawPauseIsWithinTheRangeAndRepeatsForASeed(t *testing.T) {
	config := Config{Delay: &Delay{Min: time.Second, Max: 3 * time.Second}}
	random, again := seeded(7), seeded(7)
	distinct := map[time.Duration]bool{}
	for range 50 {
		pause := DrawPause(config, random)
		if pause < time.Second || pause > 3*time.Second {
			t.Fatalf("pause %v outside 1s..3s", pause)
		}
		if repeat := DrawPause(config, again); repeat != pause {
			t.Fatalf("the same seed drew %v then %v", pause, repeat)
		}
		distinct[pause] = true
	}
	if len(distinct) <= 10 {
		t.Errorf("50 draws gave only %d distinct pauses", len(distinct))
	}
}

func TestDrawPauseIsTheBoundsAtTheEndsOfTheSource(t *testing.T) {
	config := Config{Delay: &Delay{Min: 200 * time.Millisecond, Max: 400 * time.Millisecond}}
	for _, c := range []struct {
		config Config
		random float64
		want   time.Duration
	}{{config, 0, 200 * time.Millisecond}, {config, 0.999999, 400 * time.Millisecond}, {Config{}, 0.5, 0}} {
		if got := DrawPause(c.config, func() float64 { return c.random }); got != c.want {
			t.Errorf("DrawPause(random %v) = %v, want %v", c.random, got, c.want)
		}
	}
}

func TestTypingTimeGrowsWithTheTextWithinItsBounds(t *testing.T) {
	typing := Typing{PerChar: 40 * time.Millisecond, Min: 500 * time.Millisecond, Max: 4 * time.Second}
	for _, c := range []struct {
		text string
		want time.Duration
	}{
		{"hi", 500 * time.Millisecond},
		{strings.Repeat("x", 50), 2 * time.Second},
		{strings.Repeat("x", 5000), 4 * time.Second},
		// Characters, not bytes: 50 two-byte letters type as long as 50 one-byte ones.
		{strings.Repeat("é", 50), 2 * time.Second},
	} {
		if got := TypingTime(typing, c.text); got != c.want {
			t.Errorf("TypingTime(%d bytes) = %v, want %v", len(c.text), got, c.want)
		}
	}
}
