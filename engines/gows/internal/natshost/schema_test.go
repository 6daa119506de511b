package natshost

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/engines/gows/internal/rpcschema"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

// The engine pod's replies and envelopes checked against the JSON Schema generated from the
// protocol's zod schemas (../engine-rpc.schema.json, kept fresh by protocol/test/engine-rpc-schema.test.ts).

var schemaFile, _ = filepath.Abs("../../engine-rpc.schema.json")

func schemaOf(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	compiler := jsonschema.NewCompiler()
	compiler.UseRegexpEngine(goRegexp)
	schema, err := compiler.Compile(schemaFile + "#/$defs/" + name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return schema
}

func validate(t *testing.T, schema *jsonschema.Schema, value any) {
	t.Helper()
	raw, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(decoded); err != nil {
		t.Errorf("%s does not match: %v", raw, err)
	}
}

// testOperations: GOWS's ops from the schema file the binary embeds.
func testOperations(t testing.TB) *Operations {
	t.Helper()
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	operations, err := LoadOperations(raw, "GOWS")
	if err != nil {
		t.Fatal(err)
	}
	return operations
}

func TestAdaptersAreForServedOps(t *testing.T) {
	operations := testOperations(t)
	for name := range adapters {
		if _, served := operations.Lookup(name); !served {
			t.Errorf("ops.go adapts %s, which protocol's catalog does not give GOWS", name)
		}
	}
}

func TestOperationsComeFromTheSchema(t *testing.T) {
	operations := testOperations(t)
	send, served := operations.Lookup("send.text")
	if !served || send.Method == nil || *send.Method != "sendText" || !slices.Equal(send.Needs, []string{"WORKING"}) {
		t.Errorf("send.text: %+v served %v; want sendText, needing WORKING", send, served)
	}
	if list, served := operations.Lookup("send.list"); served || list.Name != "lists" {
		t.Errorf("send.list: %+v served %v; want not served, named lists", list, served)
	}
	if _, err := LoadOperations([]byte(`{"x-operations":{},"x-engine-operations":{"GOWS":["send.text"]}}`), "GOWS"); err == nil {
		t.Error("a served op with no entry loaded")
	}
	if _, err := LoadOperations([]byte(`{"x-operations":{}}`), "GOWS"); err == nil {
		t.Error("a schema without GOWS's ops loaded")
	}
}

// goRegexp: the checks' pattern engine (compilePattern) for the library the tests compare with.
func goRegexp(pattern string) (jsonschema.Regexp, error) { return compilePattern(pattern) }

type fakeEngine struct{ calls []string }

func (f *fakeEngine) call(_ context.Context, method string, _ any) (any, error) {
	f.calls = append(f.calls, method)
	switch method {
	case "sendText":
		return map[string]any{"id": "true_1@c.us_ABC", "hasMedia": false, "media": nil}, nil
	case "qr":
		return nil, &CommandError{Code: "WRONG_STATUS", Message: "no QR code"}
	}
	return nil, nil
}

// testChecks: the pod's event checks, from the schema file the binary embeds, compiled once.
func testChecks(t testing.TB) *EventChecks {
	t.Helper()
	checks, err := compiledChecks()
	if err != nil {
		t.Fatal(err)
	}
	return checks
}

var compiledChecks = sync.OnceValues(func() (*EventChecks, error) {
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		return nil, err
	}
	return NewEventChecks(raw)
})

func testHost(t testing.TB, engine EngineFunc, published *[][]byte) *Host {
	host := &Host{session: "s1", engine: engine, log: nopLog{}, checks: testChecks(t), operations: testOperations(t), setup: rpcschema.StartParams{}, status: "STOPPED", metadata: map[string]string{"a": "b"},
		env:  map[string]any{"tier": "CORE", "version": "0.0.0", "engine": "GOWS", "platform": "linux/x64", "worker": map[string]any{"id": "engine-s1"}},
		apps: &apps{engine: engine, log: nopLog{}}}
	host.publish = func(_, _ string, envelope []byte, _ map[string]any) { *published = append(*published, envelope) }
	return host
}

type nopLog struct{}

func (nopLog) Info(string, ...any)  {}
func (nopLog) Warn(string, ...any)  {}
func (nopLog) Error(string, ...any) {}

func TestEnvelopesMatchTheProtocol(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	host.Start(context.Background())
	host.SetMe(&hostapi.Me{ID: "15550001111@c.us", PushName: "Ada"})
	host.SetStatus("WORKING", "")
	host.Emit("presence.update", map[string]any{"id": "15551230001@c.us", "presences": []any{map[string]any{"participant": "15551230001@c.us", "lastKnownPresence": "online", "lastSeen": nil}}})
	host.SetStatus("FAILED", "gone")
	if len(published) != 4 {
		t.Fatalf("published %d envelopes, want 4 (STARTING, WORKING, presence.update, FAILED)", len(published))
	}
	schema := schemaOf(t, "EventEnvelope")
	for _, raw := range published {
		var envelope any
		_ = json.Unmarshal(raw, &envelope)
		validate(t, schema, envelope)
	}
	var working, presence map[string]any
	_ = json.Unmarshal(published[1], &working)
	_ = json.Unmarshal(published[2], &presence)
	var starting map[string]any
	_ = json.Unmarshal(published[0], &starting)
	if _, ok := starting["me"]; ok {
		t.Errorf("an event outside WORKING carries me: %s", published[0])
	}
	if working["me"] == nil || presence["me"] == nil {
		t.Errorf("an event while WORKING carries me: %s", published[2])
	}
	validate(t, schemaOf(t, "event.presence.update"), presence["payload"])
}

func TestCommandRepliesMatchTheProtocol(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	schema := schemaOf(t, "CommandReply")
	for _, tc := range []struct {
		name, data, code string
	}{
		{"not JSON", `{`, "INVALID"},
		{"no op", `{"args":{}}`, "INVALID"},
		{"an op GOWS lacks", `{"op":"send.list","args":{}}`, "NOT_SUPPORTED"},
		{"status", `{"op":"host.status"}`, ""},
		{"me", `{"op":"me"}`, ""},
		{"metadata", `{"op":"host.setMetadata","args":{"metadata":{"x":"y"}}}`, ""},
	} {
		reply := c.handle([]byte(tc.data), nil)
		validate(t, schema, reply)
		if tc.code == "" && !reply.OK || tc.code != "" && (reply.OK || string(reply.Error.Code) != tc.code) {
			t.Errorf("%s: reply %+v, want code %q", tc.name, reply, tc.code)
		}
	}
}

func TestCommandsNeedTheirStatus(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	_, err := c.execute(context.Background(), "send.text", rawArgs(map[string]any{"chatId": "1@c.us", "text": "hi"}))
	if refusal, ok := err.(*CommandError); !ok || refusal.Code != "WRONG_STATUS" || refusal.Message != "session 's1' is STOPPED; this needs WORKING" {
		t.Fatalf("a send on a stopped session: %v", err)
	}
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	result, err := c.execute(context.Background(), "send.text", rawArgs(map[string]any{"chatId": "1@c.us", "text": "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	if record := result.(map[string]any); record["mediaUrl"] != nil || record["id"] != "true_1@c.us_ABC" {
		t.Errorf("sendText's record: %v", record)
	}
	if _, err := c.execute(context.Background(), "auth.qr", nil); err.(*CommandError).Code != "WRONG_STATUS" {
		t.Errorf("a QR while WORKING: %v", err)
	}
}

type warnings struct{ lines []map[string]any }

func (w *warnings) Info(string, ...any)  {}
func (w *warnings) Error(string, ...any) {}
func (w *warnings) Warn(msg string, kv ...any) {
	line := map[string]any{"msg": msg}
	for i := 0; i+1 < len(kv); i += 2 {
		line[kv[i].(string)] = kv[i+1]
	}
	w.lines = append(w.lines, line)
}

func TestAnEventThatDoesNotMatchItsSchemaIsDroppedAndLogged(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	log := &warnings{}
	host.log = log
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	published = nil
	// a presence without its presences list, then a message.ack whose ack is no number: dropped
	host.Emit("presence.update", map[string]any{"id": "15551230001@c.us"})
	host.Emit("message.reaction", map[string]any{"id": 7})
	if len(published) != 0 {
		t.Fatalf("invalid events were published (and so recorded): %s", published)
	}
	if len(log.lines) != 2 {
		t.Fatalf("logged %v, want one warning per dropped event", log.lines)
	}
	first := log.lines[0]
	issues, _ := first["issues"].([]eventIssue)
	if first["msg"] != "event does not match its protocol schema; dropped, neither recorded nor delivered" || first["session"] != "s1" ||
		first["event"] != "presence.update" || !strings.HasPrefix(first["eventId"].(string), "evt_") || len(issues) == 0 {
		t.Fatalf("the warning: %v", first)
	}
	if issues[0].Path != "payload" || !strings.Contains(issues[0].Message, "presences") {
		t.Errorf("the issue names the payload's missing field: %+v", issues)
	}
	// a valid one goes out
	host.Emit("presence.update", map[string]any{"id": "15551230001@c.us", "presences": []any{}})
	if len(published) != 1 || len(log.lines) != 2 {
		t.Fatalf("a valid event: published %d, warnings %v", len(published), log.lines)
	}
}

func TestTheEventChecksNameWhereAnEnvelopeIsWrong(t *testing.T) {
	checks := testChecks(t)
	for _, tc := range []struct{ event, raw, path string }{
		{"session.status", `{"id":"evt_01jabcdefghjkmnpqrstvwxyz0","timestamp":1,"session":"s","metadata":{},"environment":{},"engine":"GOWS","event":"session.status","payload":{"status":"NOPE"}}`, "payload.status"},
		{"no.such", `{}`, "event"},
		{"message.ack", `{"id":"nope","timestamp":1,"session":"s","metadata":{},"environment":{},"engine":"GOWS","event":"message.ack","payload":{}}`, "id"},
	} {
		issues := checks.issues(tc.event, []byte(tc.raw))
		if !slices.ContainsFunc(issues, func(issue eventIssue) bool { return issue.Path == tc.path }) {
			t.Errorf("%s: issues %+v, want one at %s", tc.event, issues, tc.path)
		}
	}
}

// BenchmarkEventCheck: what the check costs one event, a received text message's envelope
// (its JSON decoded, the envelope and payload schemas run).
func BenchmarkEventCheck(b *testing.B) {
	checks := testChecks(b)
	var published [][]byte
	host := testHost(b, (&fakeEngine{}).call, &published)
	log := &warnings{}
	host.log = log
	host.Start(context.Background())
	host.SetMe(&hostapi.Me{ID: "15550001111@c.us", PushName: "Ada"})
	host.SetStatus("WORKING", "")
	host.Emit("message", map[string]any{"id": "false_15551230001@c.us_3EB0ABCDEF", "timestamp": 1764190000,
		"from": "15551230001@c.us", "fromMe": false, "to": "15550001111@c.us", "body": "hello there", "source": "app", "participant": nil, "vCards": []any{}, "hasMedia": false, "media": nil, "ack": 1, "ackName": "SERVER",
		"_data": map[string]any{"key": map[string]any{"id": "3EB0ABCDEF"}}})
	if len(published) != 3 {
		b.Fatalf("the message event was not published: %v", log.lines)
	}
	raw := published[2]
	if issues := checks.issues("message", raw); issues != nil {
		b.Fatalf("the benchmark's event is invalid: %+v", issues)
	}
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for b.Loop() {
		checks.issues("message", raw)
	}
}

// Payload schemas compile on first use in the pod (checks.go); every one of them must compile.
func TestEveryEventPayloadSchemaCompiles(t *testing.T) {
	checks := testChecks(t)
	if len(checks.names) < 20 {
		t.Fatalf("only %d event names in the schema document", len(checks.names))
	}
	for name := range checks.names {
		if schema, err := checks.payload(name); err != nil || schema == nil {
			t.Errorf("event.%s: %v", name, err)
		}
	}
	if schema, err := checks.payload("no.such.event"); schema != nil || err != nil {
		t.Errorf("an unknown event has a schema: %v %v", schema, err)
	}
}
