package natshost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard/engines/gows/internal/pacing"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The defaults of SendingConfig and TypingConfig (protocol/src/sending.ts): the gateway and the
// operator send the config parsed, defaults in; a field left out gets its default here too.
const (
	defaultMaxQueued     = 1000
	defaultTypingPerChar = 50
	defaultTypingMin     = 1000
	defaultTypingMax     = 8000
)

// decodeSendingConfig reads a session's `sending` config (SendingConfig: host.sendQueue.setConfig's
// `sending`, or SWITCHBOARD_SENDING) and checks it against the protocol's bounds, since the pod
// paces by it alone; an INVALID refusal names the field under `field`.
func decodeSendingConfig(raw json.RawMessage, field string) (pacing.Config, error) {
	config := pacing.Config{MaxQueued: defaultMaxQueued}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	var sending rpcschema.SendingConfig
	if err := decoder.Decode(&sending); err != nil {
		return config, invalidField(field, "must be a SendingConfig: "+err.Error())
	}
	var problem error
	within := func(name string, value, low, high int) int {
		if problem == nil && (value < low || value > high) {
			problem = invalidField(field+"."+name, fmt.Sprintf("must be a whole number from %d to %d, got %d", low, high, value))
		}
		return value
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	if sending.PerMinute != nil {
		config.PerMinute = within("perMinute", *sending.PerMinute, 1, 600)
	}
	if sending.PerChatPerMinute != nil {
		config.PerChatPerMinute = within("perChatPerMinute", *sending.PerChatPerMinute, 1, 600)
	}
	if d := sending.Delay; d != nil {
		low := within("delay.minMs", d.MinMs, 0, 3_600_000)
		config.Delay = &pacing.Delay{Min: ms(low), Max: ms(within("delay.maxMs", d.MaxMs, low, 3_600_000))}
	}
	if t := sending.Typing; t != nil {
		perChar := within("typing.msPerChar", orDefault(t.MsPerChar, defaultTypingPerChar), 0, 1000)
		low := within("typing.minMs", orDefault(t.MinMs, defaultTypingMin), 0, 60_000)
		config.Typing = &pacing.Typing{PerChar: ms(perChar), Min: ms(low), Max: ms(within("typing.maxMs", orDefault(t.MaxMs, defaultTypingMax), low, 60_000))}
	}
	if w := sending.Warmup; w != nil {
		start := within("warmup.start", w.Start, 1, 100_000)
		config.Warmup = &pacing.Warmup{Start: start, Step: within("warmup.step", w.Step, 0, 100_000), Max: within("warmup.max", w.Max, start, 100_000)}
	}
	if sending.MaxQueued != nil {
		config.MaxQueued = within("maxQueued", *sending.MaxQueued, 1, 100_000)
	}
	return config, problem
}

func orDefault(value *int, fallback int) int {
	if value == nil {
		return fallback
	}
	return *value
}
