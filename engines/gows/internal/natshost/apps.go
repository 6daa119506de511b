package natshost

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

type callRule struct {
	Reject  *bool   `json:"reject"`
	Message *string `json:"message"`
}

type callsConfig struct {
	DM    *callRule `json:"dm"`
	Group *callRule `json:"group"`
}

type appConfig struct {
	App     string       `json:"app"`
	Enabled *bool        `json:"enabled"`
	Config  *callsConfig `json:"config"`
}

// apps are the session's apps (spec 2.3) beside the engine, as engine-pod/src/apps/ runs them:
// the first enabled `calls` app declines incoming calls by its rule for the kind of chat, then
// sends the caller the rule's reply, if any.
type apps struct {
	engine EngineFunc
	log    Logger
	mu     sync.Mutex
	calls  *callsConfig
}

// set takes effect from the next event.
func (a *apps) set(list []json.RawMessage) {
	var calls *callsConfig
	for _, raw := range list {
		var app appConfig
		if json.Unmarshal(raw, &app) != nil || app.App != "calls" || (app.Enabled != nil && !*app.Enabled) {
			continue
		}
		calls = app.Config
		if calls == nil {
			calls = &callsConfig{}
		}
		break
	}
	a.mu.Lock()
	a.calls = calls
	a.mu.Unlock()
}

func (a *apps) observe(event string, payload map[string]any) {
	if event != "call.received" {
		return
	}
	a.mu.Lock()
	calls := a.calls
	a.mu.Unlock()
	if calls == nil {
		return
	}
	isGroup, _ := payload["isGroup"].(bool)
	rule := calls.DM
	if isGroup {
		rule = calls.Group
	}
	// Defaults of CallsAppConfig: reject in both kinds of chat, no reply.
	if rule == nil {
		rule = &callRule{}
	}
	if rule.Reject != nil && !*rule.Reject {
		return
	}
	id, _ := payload["id"].(string)
	from, _ := payload["from"].(string)
	go a.answer(id, from, isGroup, rule.Message)
}

func (a *apps) answer(id, from string, isGroup bool, message *string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := a.engine(ctx, "rejectCall", rpcschema.RejectCallRequest{ID: id, From: from}); err != nil {
		a.log.Warn("the calls app could not reject a call", "callId", id, "from", from, "isGroup", isGroup, "err", err.Error())
		return
	}
	if message == nil {
		return
	}
	// The defaults any API client's send gets (MessageTextRequest).
	if _, err := a.engine(ctx, "sendText", rpcschema.ArgsSendText{ChatID: from, Text: *message, LinkPreview: new(true)}); err != nil {
		a.log.Warn("the calls app rejected a call but could not send its reply", "callId", id, "from", from, "err", err.Error())
	}
}
