package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"
)

// A connection gone silent (issue 31 §3): the server keeps the socket open and answers nothing.
// whatsmeow pings every 20-30 s and forces a reconnect only after KeepAliveMaxFailTime (3 min)
// without an answer, so a dead session stays WORKING for minutes. The engine sets its pings from
// the silence timeout instead and reconnects itself within it. The TypeScript side reads the same
// variable under the same rules and writes the same reason (protocol/src/connection-silence.ts).
const (
	silenceTimeoutVariable = "SWITCHBOARD_SILENCE_TIMEOUT_MS"
	defaultSilenceTimeout  = 60 * time.Second
	minSilenceTimeout      = time.Second
	// Above it whatsmeow's own forced reconnect (3 min) would act first.
	maxSilenceTimeout = 120 * time.Second
	// The longest wait between reconnect attempts after a silence.
	maxReconnectDelay = 30 * time.Second
)

func parseSilenceTimeout(raw string) (time.Duration, error) {
	if raw == "" {
		return defaultSilenceTimeout, nil
	}
	ms, err := strconv.ParseUint(raw, 10, 32)
	timeout := time.Duration(ms) * time.Millisecond
	if err != nil || timeout < minSilenceTimeout || timeout > maxSilenceTimeout {
		return 0, fmt.Errorf("%s: must be a whole number of milliseconds from %d to %d, got %q",
			silenceTimeoutVariable, minSilenceTimeout.Milliseconds(), maxSilenceTimeout.Milliseconds(), raw)
	}
	return timeout, nil
}

// pingWithin sets whatsmeow's keepalive (process-wide: one engine process serves one session) so
// that a silence is noticed within timeout: a ping every fifth of it, each answer awaited a fifth,
// so the second failure in a row comes at four fifths.
func pingWithin(timeout time.Duration) {
	whatsmeow.KeepAliveIntervalMin = timeout / 5
	// The library draws the interval between min and max, and needs max above min.
	whatsmeow.KeepAliveIntervalMax = timeout/5 + time.Millisecond
	whatsmeow.KeepAliveResponseDeadline = timeout / 5
}

func silenceReason(timeout time.Duration) string {
	return fmt.Sprintf("silent: nothing received from the messaging service for %d ms; reconnecting", timeout.Milliseconds())
}

// keepAliveFailed reconnects a WORKING session whose pings went unanswered for three quarters of
// the timeout (the same threshold as NOWEB's watch), reporting STARTING with the silence's reason.
func (e *Engine) keepAliveFailed(evt *events.KeepAliveTimeout) {
	silentFor := time.Since(evt.LastSuccess)
	timeout := e.cfg.SilenceTimeout
	if silentFor < timeout*3/4 {
		return
	}
	e.mu.Lock()
	client := e.client
	live := e.status == "WORKING" && e.working && !e.stopped && client != nil
	if live {
		e.working = false
	}
	ctx := e.life
	e.mu.Unlock()
	if !live {
		return
	}
	e.log.Warn("connection went silent (open, nothing received); reconnecting",
		"silentForMs", silentFor.Milliseconds(), "timeoutMs", timeout.Milliseconds())
	e.setStatus("STARTING", silenceReason(timeout))
	client.Disconnect()
	go e.reconnect(ctx, client)
}

// reconnect connects client again, at once and then with backoff (1 s doubling to 30 s), until it is connected,
// the engine stops (ctx) or another client replaced it. The pairing is kept: no new QR code.
func (e *Engine) reconnect(ctx context.Context, client *whatsmeow.Client) {
	delay := time.Second
	for attempt := 1; ; attempt++ {
		err := client.ConnectContext(ctx)
		if err == nil || errors.Is(err, whatsmeow.ErrAlreadyConnected) {
			return
		}
		e.log.Warn("could not reconnect after a silence", "attempt", attempt, "retryInMs", delay.Milliseconds(), "err", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		if e.client0() != client {
			return
		}
		delay = min(delay*2, maxReconnectDelay)
	}
}
