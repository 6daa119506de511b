package natshost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// EventChecks holds every event envelope to its protocol schema before the host records or
// publishes it, as the Node host does (engine-pod/src/event-validator.ts): the envelope of spec
// 2.4, `event` one of the names, `payload` that event's payload. The schemas come from
// engine-rpc.schema.json (generated from the protocol's zod schemas; the binary embeds it) and are
// compiled when first needed: the envelope at start, each event's payload the first time the
// engine makes that event. Compiling all of them at start took an idle pod from 24 to 27 MiB of
// RSS (the engine-pods bench), for events most sessions never make.
type EventChecks struct {
	envelope *jsonschema.Schema
	compiler *jsonschema.Compiler
	names    map[string]bool
	mu       sync.Mutex
	payloads map[string]*jsonschema.Schema
}

// eventIssue is one way an event differs from its schema: where (dotted path) and what is wrong.
type eventIssue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

const schemaURL = "engine-rpc.schema.json"

// NewEventChecks compiles the envelope schema of the engine RPC schema document and learns its
// event names; an error when the document is not one.
func NewEventChecks(document []byte) (*EventChecks, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(document))
	if err != nil {
		return nil, fmt.Errorf("engine RPC schema: %w", err)
	}
	var names struct {
		Defs struct {
			EventName struct {
				Enum []string `json:"enum"`
			} `json:"EventName"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(document, &names); err != nil || len(names.Defs.EventName.Enum) == 0 {
		return nil, fmt.Errorf("engine RPC schema: no $defs.EventName enum")
	}
	compiler := jsonschema.NewCompiler()
	compiler.UseRegexpEngine(goRegexp)
	if err := compiler.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("engine RPC schema: %w", err)
	}
	checks := &EventChecks{compiler: compiler, names: map[string]bool{}, payloads: map[string]*jsonschema.Schema{}}
	if checks.envelope, err = compiler.Compile(schemaURL + "#/$defs/EventEnvelope"); err != nil {
		return nil, fmt.Errorf("engine RPC schema, EventEnvelope: %w", err)
	}
	for _, name := range names.Defs.EventName.Enum {
		checks.names[name] = true
	}
	return checks, nil
}

// payload is the payload schema of a known event, compiled on its first use; nil for an unknown name.
func (c *EventChecks) payload(event string) (*jsonschema.Schema, error) {
	if !c.names[event] {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if schema, ok := c.payloads[event]; ok {
		return schema, nil
	}
	schema, err := c.compiler.Compile(schemaURL + "#/$defs/event." + event)
	if err != nil {
		return nil, fmt.Errorf("engine RPC schema, event.%s: %w", event, err)
	}
	c.payloads[event] = schema
	return schema, nil
}

// issues: why an envelope (its JSON) does not match its schema; nil when it does.
func (c *EventChecks) issues(event string, raw []byte) []eventIssue {
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []eventIssue{{Path: "(envelope)", Message: "not JSON: " + err.Error()}}
	}
	payload, err := c.payload(event)
	if err != nil {
		return []eventIssue{{Path: "payload", Message: err.Error()}}
	}
	if payload == nil {
		return []eventIssue{{Path: "event", Message: fmt.Sprintf("unknown event name %q", event)}}
	}
	var found []eventIssue
	found = appendIssues(found, "", c.envelope.Validate(value))
	if envelope, ok := value.(map[string]any); ok {
		found = appendIssues(found, "payload", payload.Validate(envelope["payload"]))
	}
	return found
}

// appendIssues adds the leaves of a validation error, each with its instance path (dotted, as the
// Node host's zod paths are) under prefix.
func appendIssues(found []eventIssue, prefix string, err error) []eventIssue {
	if err == nil {
		return found
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return append(found, eventIssue{Path: orEnvelope(prefix), Message: err.Error()})
	}
	if len(verr.Causes) == 0 {
		path := strings.Join(append(strings.Fields(prefix), verr.InstanceLocation...), ".")
		return append(found, eventIssue{Path: orEnvelope(path), Message: verr.BasicOutput().Error.String()})
	}
	for _, cause := range verr.Causes {
		found = appendIssues(found, prefix, cause)
	}
	return found
}

func orEnvelope(path string) string {
	if path == "" {
		return "(envelope)"
	}
	return path
}

// goRegexp: Go's regexp, with repeat counts above its limit of 1000 capped there (the protocol's
// `{1,1024}` of a passkey credential id): a value past 1000 repeats is then refused, stricter than
// the protocol by what no real value comes near.
func goRegexp(pattern string) (jsonschema.Regexp, error) {
	return regexp.Compile(bigRepeat.ReplaceAllStringFunc(pattern, func(repeat string) string {
		parts := bigRepeat.FindStringSubmatch(repeat)
		return "{" + parts[1] + ",1000}"
	}))
}

var bigRepeat = regexp.MustCompile(`\{(\d+),(\d{4,})\}`)
