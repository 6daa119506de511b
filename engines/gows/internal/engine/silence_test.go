package engine

import (
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
)

// The same rules as protocol/src/connection-silence.ts: unset is 60 s, else 1000 to 120000 ms.
func TestParseSilenceTimeout(t *testing.T) {
	for raw, want := range map[string]time.Duration{"": time.Minute, "1000": time.Second, "120000": 2 * time.Minute, "2500": 2500 * time.Millisecond} {
		got, err := parseSilenceTimeout(raw)
		if err != nil || got != want {
			t.Errorf("parseSilenceTimeout(%q) = %v, %v; want %v", raw, got, err, want)
		}
	}
	for _, raw := range []string{"999", "120001", "2s", "-5000", "1.5"} {
		_, err := parseSilenceTimeout(raw)
		if err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_SILENCE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000") {
			t.Errorf("parseSilenceTimeout(%q): want the variable's rule, got %v", raw, err)
		}
	}
}

// Two unanswered pings in a row fit within the timeout: a ping every fifth, each awaited a fifth.
func TestPingWithin(t *testing.T) {
	minimum, maximum, deadline := whatsmeow.KeepAliveIntervalMin, whatsmeow.KeepAliveIntervalMax, whatsmeow.KeepAliveResponseDeadline
	t.Cleanup(func() {
		whatsmeow.KeepAliveIntervalMin, whatsmeow.KeepAliveIntervalMax, whatsmeow.KeepAliveResponseDeadline = minimum, maximum, deadline
	})
	pingWithin(5 * time.Second)
	if whatsmeow.KeepAliveIntervalMin != time.Second || whatsmeow.KeepAliveIntervalMax <= whatsmeow.KeepAliveIntervalMin || whatsmeow.KeepAliveResponseDeadline != time.Second {
		t.Errorf("keepalive: min %v max %v deadline %v", whatsmeow.KeepAliveIntervalMin, whatsmeow.KeepAliveIntervalMax, whatsmeow.KeepAliveResponseDeadline)
	}
	if 2*(whatsmeow.KeepAliveIntervalMax+whatsmeow.KeepAliveResponseDeadline) > 5*time.Second {
		t.Errorf("two failed pings take longer than the timeout")
	}
}

func TestSilenceReasonMatchesTheGateway(t *testing.T) {
	if got := silenceReason(2 * time.Second); got != "silent: nothing received from the messaging service for 2000 ms; reconnecting" {
		t.Errorf("silenceReason = %q", got)
	}
}
