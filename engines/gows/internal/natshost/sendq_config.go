package natshost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard/engines/gows/internal/pacing"
)

// sendingConfig is a session's `sending` config as host.sendQueue.setConfig carries it
// (protocol/src/sending.ts SendingConfig): the gateway parsed it, defaults in; it is checked
// again here against the same bounds, since a pod paces by it alone.
type sendingConfig struct {
	PerMinute        *int `json:"perMinute"`
	PerChatPerMinute *int `json:"perChatPerMinute"`
	Delay            *struct {
		MinMs int `json:"minMs"`
		MaxMs int `json:"maxMs"`
	} `json:"delay"`
	Typing *struct {
		MsPerChar *int `json:"msPerChar"`
		MinMs     *int `json:"minMs"`
		MaxMs     *int `json:"maxMs"`
	} `json:"typing"`
	Warmup *struct {
		Start int `json:"start"`
		Step  int `json:"step"`
		Max   int `json:"max"`
	} `json:"warmup"`
	MaxQueued *int `json:"maxQueued"`
}

// The defaults of SendingConfig and TypingConfig.
const (
	defaultMaxQueued     = 1000
	defaultTypingPerChar = 50
	defaultTypingMin     = 1000
	defaultTypingMax     = 8000
)

func decodeSendingConfig(raw json.RawMessage) (*sendingConfig, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	var config sendingConfig
	if err := decoder.Decode(&config); err != nil {
		return nil, invalidField("args.sending", "must be a SendingConfig or null: "+err.Error())
	}
	return &config, nil
}

// pacing checks the bounds of SendingConfig and gives the rules' config, every bound by field.
func (c sendingConfig) pacing() (pacing.Config, error) {
	config := pacing.Config{MaxQueued: defaultMaxQueued}
	within := func(field string, value, low, high int) error {
		if value < low || value > high {
			return invalidField("args.sending."+field, fmt.Sprintf("must be a whole number from %d to %d, got %d", low, high, value))
		}
		return nil
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	if c.PerMinute != nil {
		if err := within("perMinute", *c.PerMinute, 1, 600); err != nil {
			return config, err
		}
		config.PerMinute = *c.PerMinute
	}
	if c.PerChatPerMinute != nil {
		if err := within("perChatPerMinute", *c.PerChatPerMinute, 1, 600); err != nil {
			return config, err
		}
		config.PerChatPerMinute = *c.PerChatPerMinute
	}
	if d := c.Delay; d != nil {
		if err := within("delay.minMs", d.MinMs, 0, 3_600_000); err != nil {
			return config, err
		}
		if err := within("delay.maxMs", d.MaxMs, d.MinMs, 3_600_000); err != nil {
			return config, err
		}
		config.Delay = &pacing.Delay{Min: ms(d.MinMs), Max: ms(d.MaxMs)}
	}
	if t := c.Typing; t != nil {
		perChar, low, high := orDefault(t.MsPerChar, defaultTypingPerChar), orDefault(t.MinMs, defaultTypingMin), orDefault(t.MaxMs, defaultTypingMax)
		if err := within("typing.msPerChar", perChar, 0, 1000); err != nil {
			return config, err
		}
		if err := within("typing.minMs", low, 0, 60_000); err != nil {
			return config, err
		}
		if err := within("typing.maxMs", high, low, 60_000); err != nil {
			return config, err
		}
		config.Typing = &pacing.Typing{PerChar: ms(perChar), Min: ms(low), Max: ms(high)}
	}
	if w := c.Warmup; w != nil {
		if err := within("warmup.start", w.Start, 1, 100_000); err != nil {
			return config, err
		}
		if err := within("warmup.step", w.Step, 0, 100_000); err != nil {
			return config, err
		}
		if err := within("warmup.max", w.Max, w.Start, 100_000); err != nil {
			return config, err
		}
		config.Warmup = &pacing.Warmup{Start: w.Start, Step: w.Step, Max: w.Max}
	}
	if c.MaxQueued != nil {
		if err := within("maxQueued", *c.MaxQueued, 1, 100_000); err != nil {
			return config, err
		}
		config.MaxQueued = *c.MaxQueued
	}
	return config, nil
}

func orDefault(value *int, fallback int) int {
	if value == nil {
		return fallback
	}
	return *value
}
