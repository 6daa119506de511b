package natshost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The pod's own checker (checks.go) against the JSON Schema library on the same values: every
// event's payload schema and the envelope's, each given the same set of payloads (valid ones from
// the tests, each of them with a field taken away or given a value of another type, and a few
// stray values). The verdicts (matches or not) must agree, so the pod drops what the library
// would have dropped and keeps what it would have kept.
func TestTheEventChecksAgreeWithTheLibrary(t *testing.T) {
	checks := testChecks(t)
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.UseRegexpEngine(goRegexp)
	document, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := compiler.AddResource("engine-rpc.schema.json", document); err != nil {
		t.Fatal(err)
	}
	values := checkedValues()
	valid := 0 // comparisons where both accept: the rest both refuse
	for name := range checks.names {
		ours, err := checks.payload(name)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := compiler.Compile("engine-rpc.schema.json#/$defs/event." + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, value := range values {
			valid += agree(t, "event."+name, ours, theirs, value)
		}
	}
	theirs, err := compiler.Compile("engine-rpc.schema.json#/$defs/EventEnvelope")
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range values {
		for _, envelope := range mutations(map[string]any{"id": "evt_01jabcdefghjkmnpqrstvwxyz0", "timestamp": 1, "session": "s", "metadata": map[string]any{"a": "b"},
			"environment": map[string]any{"tier": "CORE", "version": "0.0.0", "engine": "GOWS", "platform": "linux/x64", "worker": map[string]any{"id": "engine-s1"}},
			"engine":      "GOWS", "event": "message", "payload": value, "me": map[string]any{"id": "15550001111@c.us", "pushName": "Ada"}}) {
			valid += agree(t, "EventEnvelope", checks.envelope, theirs, envelope)
		}
	}
	if valid < 100 || valid > len(values)*(len(checks.names)+60)/2 {
		t.Errorf("%d of the comparisons accepted: want both verdicts well represented", valid)
	}
	t.Logf("%d values, %d events, %d accepted", len(values), len(checks.names), valid)
}

func agree(t *testing.T, name string, ours *schemaNode, theirs *jsonschema.Schema, value any) int {
	t.Helper()
	encoded, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := decodeJSON(encoded)
	if err != nil {
		t.Fatal(err)
	}
	libraries, err := jsonschema.UnmarshalJSON(bytes.NewReader(encoded))
	if err != nil {
		t.Fatal(err)
	}
	issues := ours.check(mine, nil, nil)
	verdict := theirs.Validate(libraries)
	if (len(issues) == 0) != (verdict == nil) {
		t.Errorf("%s on %s: the pod's issues %+v, the library's %v", name, encoded, issues, verdict)
	}
	if verdict == nil {
		return 1
	}
	return 0
}

// checkedValues: payloads of the tests, valid for their events, and each with one change.
func checkedValues() []any {
	bases := []map[string]any{
		{"id": "false_15551230001@c.us_3EB0ABCDEF", "timestamp": 1764190000, "from": "15551230001@c.us", "fromMe": false, "to": "15550001111@c.us", "body": "hello there",
			"source": "app", "participant": nil, "vCards": []any{}, "hasMedia": false, "media": nil, "ack": 1, "ackName": "SERVER", "_data": map[string]any{"key": map[string]any{"id": "3EB0ABCDEF"}}},
		{"id": "15551230001@c.us", "presences": []any{map[string]any{"participant": "15551230001@c.us", "lastKnownPresence": "online", "lastSeen": nil}}},
		{"status": "WORKING"},
		{"status": "FAILED", "reason": "gone"},
		{"id": "false_15551230001@c.us_3EB0ABCDEF", "from": "15551230001@c.us", "fromMe": false, "participant": nil, "to": "15550001111@c.us",
			"reaction": map[string]any{"text": "👍", "messageId": "false_15551230001@c.us_3EB0ABCDEF"}, "timestamp": 1764190000},
		{"id": "true_15551230001@c.us_3EB0ABCDEF", "from": "15550001111@c.us", "to": "15551230001@c.us", "participant": nil, "fromMe": true, "ack": 3, "ackName": "READ"},
		{"label": map[string]any{"id": "1", "name": "Work", "color": 0, "colorHex": "#ff9485"}},
		{"labelId": "1", "chatId": "15551230001@c.us", "label": map[string]any{"id": "1", "name": "Work", "color": 0, "colorHex": "#ff9485"}},
		{"id": "15551230001@c.us", "state": "typing"},
	}
	values := []any{nil, true, 7, 1.5, "x", []any{}, map[string]any{}, []any{map[string]any{}}}
	for _, base := range bases {
		values = append(values, mutations(base)...)
	}
	return values
}

// mutations: value, then value with each field taken away, then each field set to null, to a
// number, to a string that matches no pattern and to a list.
func mutations(value map[string]any) []any {
	out := []any{value}
	for key := range value {
		for i, change := range []any{"(gone)", nil, 12345, "?? no such value ??", []any{"x"}, map[string]any{"extra": 1}} {
			changed := map[string]any{}
			for k, v := range value {
				changed[k] = v
			}
			if i == 0 {
				delete(changed, key)
			} else {
				changed[key] = change
			}
			out = append(out, changed)
		}
	}
	out = append(out, func() map[string]any {
		extra := map[string]any{"unknownField": fmt.Sprint(len(value))}
		for k, v := range value {
			extra[k] = v
		}
		return extra
	}())
	return out
}
