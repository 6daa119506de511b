package natshost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// EngineFunc answers one engine method (names and params of engines/gows/PROTOCOL.md, "Host ->
// engine requests"). Refusals are *CommandError.
type EngineFunc func(ctx context.Context, method string, params any) (any, error)

// CommandError is a command's refusal with the protocol's code: the engine's own errors are of the
// same type (hostapi.CommandError), so they reach the reply as they are.
type CommandError = hostapi.CommandError

const recentStatuses = 3

type statusPoint struct {
	Status    string `json:"status"`
	Timestamp int64  `json:"timestamp"`
}

// Host is engine-pod/src/engine-host.ts for the one engine in this process: the status and its
// recent history, the account, the envelopes of spec 2.4 and their ids, the calls app. It is the
// engine's host (hostapi.Host), called in process: no JSON between the engine and it.
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
	setup      rpcschema.StartParams // the start params: session and settings
	// mayConnect says whether this pod holds the session's lease (invariant 1): a Start while it
	// does not leaves the engine stopped, whoever asks (a logout's restart that outlived the lease).
	// Nil: always (tests of the host alone).
	mayConnect func() bool
	// working is told each time the session is WORKING (the send queue: pairing date, retries).
	working func()

	mu      sync.Mutex
	running bool
	status  string
	recent  []statusPoint
	me      json.RawMessage
	failure string
	// versions: what the engine said this start runs (SetVersions); nil before it has.
	versions *hostapi.Versions
	metadata map[string]string
}

func (h *Host) Status() (status string, recent []statusPoint, me json.RawMessage, failure string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, append([]statusPoint(nil), h.recent...), h.me, h.failure
}

// Versions is what the engine last said it runs; nil before it has.
func (h *Host) Versions() *hostapi.Versions {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.versions
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
	// Asked under the lock that Stop reads running with: a lease lost before this is refused here,
	// one lost after it finds running set and stops the engine.
	if h.mayConnect != nil && !h.mayConnect() {
		h.mu.Unlock()
		h.log.Warn("engine not started: this pod does not hold the session lease")
		return
	}
	h.running = true
	// The engine says again what this start runs (SetVersions); until then, nothing stale.
	h.versions = nil
	h.mu.Unlock()
	h.setStatus("STARTING", "")
	if _, err := h.engine(ctx, "start", h.setup); err != nil {
		h.log.Error("engine failed to start", "err", err.Error())
		h.setStatus("FAILED", "the engine failed to start: "+err.Error())
	}
	// A Stop while the engine was starting may have come before the engine had anything to stop.
	if !h.isRunning() {
		_, _ = h.engine(context.WithoutCancel(ctx), "stop", nil)
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
	_, _ = h.engine(ctx, "stop", nil)
	h.setStatus("STOPPED", "")
}

// Logout unpairs; the caller decides whether to start again.
func (h *Host) Logout(ctx context.Context) error {
	h.mu.Lock()
	running := h.running
	h.mu.Unlock()
	var err error
	if running {
		_, err = h.engine(ctx, "logout", nil)
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
	} else if status == "STARTING" && reason != "" {
		// Why a WORKING session reconnects (a silent connection), as the Node host says it.
		payload["reason"] = reason
	}
	if h.versions != nil {
		payload["versions"] = *h.versions
	}
	failure := h.failure
	h.mu.Unlock()
	if failure != "" {
		h.log.Warn("session FAILED", "previous", previous, "reason", failure)
	} else if status != previous {
		h.log.Info("session "+status, "previous", previous, "status", status)
	}
	h.emit("session.status", payload)
	if status == "WORKING" && h.working != nil {
		h.working()
	}
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

// isRunning: whether the engine is running; what an engine that is not running reports is
// dropped, as the host ignores a replaced engine.
func (h *Host) isRunning() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

var _ hostapi.Host = (*Host)(nil)

// SetStatus is the engine's status (hostapi.Host).
func (h *Host) SetStatus(status, reason string) {
	if h.isRunning() {
		h.setStatus(status, reason)
	}
}

// SetVersions is what the engine runs (hostapi.Host): every session.status from now on, and
// host.status, carry it, as the Node host's do.
func (h *Host) SetVersions(versions hostapi.Versions) {
	if !h.isRunning() {
		return
	}
	h.mu.Lock()
	h.versions = &versions
	h.mu.Unlock()
}

// SetMe is the engine's account (hostapi.Host); nil: none. Kept as JSON: every envelope carries it.
func (h *Host) SetMe(me *hostapi.Me) {
	if !h.isRunning() {
		return
	}
	var raw json.RawMessage
	if me != nil {
		raw, _ = json.Marshal(me) // two strings always encode
	}
	h.mu.Lock()
	h.me = raw
	h.mu.Unlock()
}

// Emit is one of the engine's events (hostapi.Host). Its payload goes out as JSON; the checks and
// the apps read it as a JSON object, numbers kept exact, so it is encoded and read back once here.
func (h *Host) Emit(event string, payload any) {
	if !h.isRunning() {
		return
	}
	raw, err := json.Marshal(payload)
	var object map[string]any
	if err == nil {
		err = decodeNumbers(raw, &object)
	}
	if err != nil || object == nil {
		h.log.Warn("engine event is not an object; dropped", "event", event)
		return
	}
	h.emit(event, object)
	h.apps.observe(event, object)
	// A member's acknowledgement in a group is `message.ack` (spec 6.2), and `message.ack.group` too.
	if event == "message.ack" && isGroupAck(object) {
		h.emit("message.ack.group", object)
	}
}

func isGroupAck(payload map[string]any) bool {
	participant, _ := payload["participant"].(string)
	from, _ := payload["from"].(string)
	return participant != "" && len(from) > 5 && from[len(from)-5:] == "@g.us"
}

// AuthGet reads the session's auth state (hostapi.Host): the `sb_auth` bucket.
func (h *Host) AuthGet(ctx context.Context, typ string, ids []string) (map[string]json.RawMessage, error) {
	return h.auth.get(ctx, typ, ids)
}

// AuthSet writes the session's auth state (hostapi.Host).
func (h *Host) AuthSet(ctx context.Context, data map[string]map[string]json.RawMessage) error {
	return h.auth.set(ctx, data)
}

// AuthClear forgets the session's auth state (hostapi.Host).
func (h *Host) AuthClear(ctx context.Context) error {
	return h.auth.clear(ctx)
}

// SaveMedia streams the engine's spool file (PROTOCOL.md, media.save) into the session's object
// store and answers the record's `media` (hostapi.Host); the engine removes the file.
func (h *Host) SaveMedia(ctx context.Context, spooled hostapi.SpooledFile) (json.RawMessage, error) {
	file, err := os.Open(spooled.Path)
	if err != nil {
		return nil, fmt.Errorf("media.save: %w", err)
	}
	defer func() { _ = file.Close() }()
	media, err := h.media.put(ctx, spooled.Mimetype, spooled.Filename, file)
	if err != nil {
		return nil, err
	}
	return json.Marshal(media)
}
