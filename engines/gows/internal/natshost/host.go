package natshost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// EngineFunc answers one engine method (names and params of engines/gows/PROTOCOL.md, "Host ->
// engine requests"). Refusals are *CommandError.
type EngineFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

// CommandError is a refusal with a protocol CommandErrorCode (INVALID, WRONG_STATUS, NOT_SUPPORTED...).
type CommandError struct {
	Code    string
	Message string
	Details map[string]any
}

func (e *CommandError) Error() string { return e.Code + ": " + e.Message }

const recentStatuses = 3

type statusPoint struct {
	Status    string `json:"status"`
	Timestamp int64  `json:"timestamp"`
}

// Host is engine-pod/src/engine-host.ts for the one engine in this process: the status and its
// recent history, the account, the envelopes of spec 2.4 and their ids, the calls app. It is the
// engine's link to its host (Notify and Call, as over the engine RPC), in process.
type Host struct {
	session string
	engine  EngineFunc
	log     Logger
	auth    authState
	media   *mediaStore
	publish func(id, event string, envelope []byte, payload map[string]any)
	checks  *EventChecks
	// operations route and refuse the commands (protocol's OPERATIONS, operations.go).
	operations *Operations
	env        map[string]any
	apps       *apps
	setup      json.RawMessage // the start params: session and settings

	mu       sync.Mutex
	running  bool
	status   string
	recent   []statusPoint
	me       json.RawMessage
	failure  string
	metadata map[string]string
}

func (h *Host) Status() (status string, recent []statusPoint, me json.RawMessage, failure string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, append([]statusPoint(nil), h.recent...), h.me, h.failure
}

// Start is idempotent; a FAILED engine is stopped and started again (spec part 3, rule 1).
func (h *Host) Start(ctx context.Context) {
	h.mu.Lock()
	running, status := h.running, h.status
	h.mu.Unlock()
	if running && status != "FAILED" {
		return
	}
	if running {
		h.Stop(ctx)
	}
	h.mu.Lock()
	h.running = true
	h.mu.Unlock()
	h.setStatus("STARTING", "")
	if _, err := h.engine(ctx, "start", h.setup); err != nil {
		h.log.Error("engine failed to start", "err", err.Error())
		h.setStatus("FAILED", "the engine failed to start: "+err.Error())
	}
}

// Stop is idempotent and keeps the auth state (spec part 3, rule 2).
func (h *Host) Stop(ctx context.Context) {
	h.mu.Lock()
	running := h.running
	h.running = false
	h.mu.Unlock()
	if !running {
		return
	}
	_, _ = h.engine(ctx, "stop", json.RawMessage("{}"))
	h.setStatus("STOPPED", "")
}

// Logout unpairs; the caller decides whether to start again.
func (h *Host) Logout(ctx context.Context) error {
	h.mu.Lock()
	running := h.running
	h.mu.Unlock()
	var err error
	if running {
		_, err = h.engine(ctx, "logout", json.RawMessage("{}"))
	} else {
		err = h.auth.clear(ctx)
	}
	h.mu.Lock()
	h.me = nil
	h.mu.Unlock()
	return err
}

func (h *Host) SetMetadata(metadata map[string]string) {
	h.mu.Lock()
	h.metadata = metadata
	h.mu.Unlock()
}

func (h *Host) setStatus(status, reason string) {
	h.mu.Lock()
	previous := h.status
	h.status = status
	h.failure = ""
	if status == "FAILED" {
		h.failure = reason
		if h.failure == "" {
			h.failure = "the engine reported FAILED"
		}
	}
	h.recent = append(h.recent, statusPoint{Status: status, Timestamp: time.Now().UnixMilli()})
	if len(h.recent) > recentStatuses {
		h.recent = h.recent[len(h.recent)-recentStatuses:]
	}
	payload := map[string]any{"name": h.session, "status": status, "statuses": append([]statusPoint(nil), h.recent...)}
	if h.failure != "" {
		payload["reason"] = h.failure
	}
	failure := h.failure
	h.mu.Unlock()
	if failure != "" {
		h.log.Warn("session FAILED", "previous", previous, "reason", failure)
	} else if status != previous {
		h.log.Info("session "+status, "previous", previous, "status", status)
	}
	h.emit("session.status", payload)
}

type envelope struct {
	ID          string            `json:"id"`
	Timestamp   int64             `json:"timestamp"`
	Event       string            `json:"event"`
	Session     string            `json:"session"`
	Metadata    map[string]string `json:"metadata"`
	Me          json.RawMessage   `json:"me,omitempty"`
	Payload     map[string]any    `json:"payload"`
	Environment map[string]any    `json:"environment"`
	Engine      string            `json:"engine"`
}

// emit makes the event's envelope (spec 2.4) and publishes it. `me` only while WORKING. An
// envelope that does not match its protocol schema is logged and dropped, neither recorded nor
// published (publish does both), as the Node host drops it (engine-host.ts).
func (h *Host) emit(event string, payload map[string]any) {
	now := time.Now()
	h.mu.Lock()
	env := envelope{ID: newEventID(now), Timestamp: now.UnixMilli(), Event: event, Session: h.session, Metadata: h.metadata,
		Payload: withMediaURL(payload), Environment: h.env, Engine: "GOWS"}
	if h.status == "WORKING" && len(h.me) > 0 && string(h.me) != "null" {
		env.Me = h.me
	}
	h.mu.Unlock()
	raw, err := json.Marshal(env)
	if err != nil {
		h.log.Error("event cannot be encoded; dropped", "event", event, "err", err.Error())
		return
	}
	if issues := h.checks.issues(event, raw); len(issues) > 0 {
		h.log.Warn("event does not match its protocol schema; dropped, neither recorded nor delivered",
			"eventId", env.ID, "session", env.Session, "event", event, "issues", issues)
		return
	}
	h.publish(env.ID, event, raw, env.Payload)
}

// withMediaURL: a record with media carries `mediaUrl` = `media.url` (protocol's withMediaUrl).
func withMediaURL(payload map[string]any) map[string]any {
	if _, ok := payload["hasMedia"]; !ok {
		return payload
	}
	media, ok := payload["media"]
	if !ok {
		return payload
	}
	if m, isMap := media.(map[string]any); isMap && m != nil {
		payload["mediaUrl"] = m["url"]
	} else {
		delete(payload, "mediaUrl")
	}
	return payload
}

// Notify is the engine's notification (status, me, event). What an engine that is not running
// reports is dropped, as the host ignores a replaced engine.
func (h *Host) Notify(method string, params any) {
	h.mu.Lock()
	running := h.running
	h.mu.Unlock()
	if !running {
		return
	}
	raw, err := json.Marshal(params)
	if err != nil {
		h.log.Error("engine notification cannot be encoded", "method", method, "err", err.Error())
		return
	}
	switch method {
	case "status":
		var p struct{ Status, Reason string }
		if json.Unmarshal(raw, &p) == nil {
			h.setStatus(p.Status, p.Reason)
		}
	case "me":
		var p struct {
			Me json.RawMessage `json:"me"`
		}
		if json.Unmarshal(raw, &p) == nil {
			h.mu.Lock()
			h.me = p.Me
			h.mu.Unlock()
		}
	case "event":
		var p struct {
			Event   string         `json:"event"`
			Payload map[string]any `json:"payload"`
		}
		if err := decodeNumbers(raw, &p); err != nil || p.Payload == nil {
			h.log.Warn("engine event is not an object; dropped", "method", method)
			return
		}
		h.emit(p.Event, p.Payload)
		h.apps.observe(p.Event, p.Payload)
		// A member's acknowledgement in a group is `message.ack` (spec 6.2), and `message.ack.group` too.
		if p.Event == "message.ack" && isGroupAck(p.Payload) {
			h.emit("message.ack.group", p.Payload)
		}
	}
}

func isGroupAck(payload map[string]any) bool {
	participant, _ := payload["participant"].(string)
	from, _ := payload["from"].(string)
	return participant != "" && len(from) > 5 && from[len(from)-5:] == "@g.us"
}

// Call is the engine's request to its host: its auth state and media.
func (h *Host) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var answer any
	switch method {
	case "auth.get":
		var p struct {
			Type string   `json:"type"`
			IDs  []string `json:"ids"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if answer, err = h.auth.get(ctx, p.Type, p.IDs); err != nil {
			return err
		}
	case "auth.set":
		var p struct {
			Data map[string]map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if err := h.auth.set(ctx, p.Data); err != nil {
			return err
		}
	case "auth.clear":
		if err := h.auth.clear(ctx); err != nil {
			return err
		}
	case "media.save":
		// The engine's spool file (PROTOCOL.md), streamed into the object store; the engine removes it.
		var p struct {
			Mimetype string `json:"mimetype"`
			Filename string `json:"filename"`
			Path     string `json:"path"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		file, err := os.Open(p.Path)
		if err != nil {
			return fmt.Errorf("media.save: %w", err)
		}
		defer func() { _ = file.Close() }()
		media, err := h.media.put(ctx, p.Mimetype, p.Filename, file)
		if err != nil {
			return err
		}
		answer = media
	default:
		return fmt.Errorf("unknown host method %s", method)
	}
	if result == nil {
		return nil
	}
	out, err := json.Marshal(answer)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, result)
}
