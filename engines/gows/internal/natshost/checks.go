package natshost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// EventChecks holds every event envelope to its protocol schema before the host records or
// publishes it, as the Node host does (engine-pod/src/event-validator.ts): the envelope of spec
// 2.4, `event` one of the names, `payload` that event's payload. The schemas come from
// engine-rpc.schema.json (generated from the protocol's zod schemas; the binary embeds it) and are
// compiled when first needed: the envelope at start, each event's payload the first time the
// engine makes that event.
//
// The checker is this file's, not a JSON Schema library's: github.com/santhosh-tekuri/jsonschema
// compiles every draft's meta-schemas in its init (1.7 MB of heap, kept for the process's life)
// and its compiler keeps the parsed document (0.6 MB); with the GC's headroom that was ~4 MiB of an
// idle pod's RSS (28-29 MiB against a 25 MiB target). This one knows the keywords the generated
// document uses (schemaKeywords; a schema with another keyword does not compile, so a protocol
// change that needs more is caught by TestEveryEventPayloadSchemaCompiles), decodes the document
// afresh for each compile and keeps only the compiled nodes of the events the session made.
// natshost's tests check the same events against the library (schema_test.go) as a second opinion.
type EventChecks struct {
	document []byte // the embedded document: read-only data of the binary, not heap
	envelope *schemaNode
	names    map[string]bool
	mu       sync.Mutex
	payloads map[string]*schemaNode
	// paced: the args schemas of the paced sends' ops (sendq_checks.go), compiled on first use.
	paced map[string]*schemaNode
}

// eventIssue is one way an event differs from its schema: where (dotted path) and what is wrong.
type eventIssue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// NewEventChecks compiles the envelope schema of the engine RPC schema document and learns its
// event names; an error when the document is not one.
func NewEventChecks(document []byte) (*EventChecks, error) {
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
	checks := &EventChecks{document: document, names: map[string]bool{}, payloads: map[string]*schemaNode{}}
	envelope, err := compileDef(document, "EventEnvelope")
	if err != nil {
		return nil, fmt.Errorf("engine RPC schema, EventEnvelope: %w", err)
	}
	checks.envelope = envelope
	for _, name := range names.Defs.EventName.Enum {
		checks.names[name] = true
	}
	return checks, nil
}

// payload is the payload schema of a known event, compiled on its first use; nil for an unknown name.
func (c *EventChecks) payload(event string) (*schemaNode, error) {
	if !c.names[event] {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if schema, ok := c.payloads[event]; ok {
		return schema, nil
	}
	schema, err := compileDef(c.document, "event."+event)
	if err != nil {
		return nil, fmt.Errorf("engine RPC schema, event.%s: %w", event, err)
	}
	c.payloads[event] = schema
	return schema, nil
}

// issues: why an envelope (its JSON) does not match its schema; nil when it does.
func (c *EventChecks) issues(event string, raw []byte) []eventIssue {
	value, err := decodeJSON(raw)
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
	found = c.envelope.check(value, nil, found)
	if envelope, ok := value.(map[string]any); ok {
		found = payload.check(envelope["payload"], []string{"payload"}, found)
	}
	return found
}

// decodeJSON: one JSON value, its numbers kept as written (json.Number), nothing after it.
func decodeJSON(raw []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	if decoder.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return value, nil
}

// schemaNode is one compiled (sub)schema. A nil node and an empty one accept anything.
type schemaNode struct {
	never                bool // `false`, or `not: {}`
	types                []string
	properties           map[string]*schemaNode
	required             []string
	additional           *schemaNode
	noAdditional         bool
	propertyNames        *schemaNode
	items                *schemaNode
	minItems, maxItems   int // -1: none
	uniqueItems          bool
	minLength, maxLength int // -1: none
	pattern              *regexp.Regexp
	minimum, maximum     *float64
	enum                 []any
	hasConst             bool
	constant             any
	anyOf, oneOf, allOf  []*schemaNode
	not                  *schemaNode
	ifNode, then, elseOf *schemaNode
	ref                  *schemaNode
}

// schemaKeywords: what the compiler understands; annotations are read past.
var schemaKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "propertyNames": true, "items": true,
	"minItems": true, "maxItems": true, "uniqueItems": true, "minLength": true, "maxLength": true, "pattern": true,
	"minimum": true, "maximum": true, "enum": true, "const": true, "anyOf": true, "oneOf": true, "allOf": true, "not": true,
	"if": true, "then": true, "else": true, "$ref": true,
	// annotations (format and contentEncoding are annotations only in draft 2020-12, as the library treated them)
	"$schema": true, "$comment": true, "$defs": true, "description": true, "examples": true, "default": true, "deprecated": true,
	"format": true, "contentEncoding": true, "title": true,
}

// compiler compiles the subschemas one definition reaches; $refs to a definition share one node.
type compiler struct {
	defs     map[string]json.RawMessage
	compiled map[string]*schemaNode
	patterns map[string]*regexp.Regexp
}

// compileDef compiles $defs[name] of document and what it refers to; the decoded document is
// garbage once it returns.
func compileDef(document []byte, name string) (*schemaNode, error) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, err
	}
	c := &compiler{defs: doc.Defs, compiled: map[string]*schemaNode{}, patterns: map[string]*regexp.Regexp{}}
	return c.def(name)
}

func (c *compiler) def(name string) (*schemaNode, error) {
	if node, ok := c.compiled[name]; ok {
		return node, nil
	}
	raw, ok := c.defs[name]
	if !ok {
		return nil, fmt.Errorf("no $defs/%s", name)
	}
	value, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	node := &schemaNode{}
	c.compiled[name] = node // before compiling it: a definition may refer to itself
	if err := c.fill(node, value, "#/$defs/"+name); err != nil {
		return nil, err
	}
	return node, nil
}

func (c *compiler) compile(value any, at string) (*schemaNode, error) {
	node := &schemaNode{}
	return node, c.fill(node, value, at)
}

func (c *compiler) fill(node *schemaNode, value any, at string) error {
	node.minItems, node.maxItems, node.minLength, node.maxLength = -1, -1, -1, -1
	switch schema := value.(type) {
	case bool:
		node.never = !schema
		return nil
	case map[string]any:
		for keyword := range schema {
			if !schemaKeywords[keyword] {
				return fmt.Errorf("%s: keyword %q is not one the event checks know", at, keyword)
			}
		}
		return c.fillObject(node, schema, at)
	}
	return fmt.Errorf("%s: a schema is an object or a boolean", at)
}

func (c *compiler) fillObject(node *schemaNode, schema map[string]any, at string) error {
	var err error
	if ref, ok := schema["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		if !found {
			return fmt.Errorf("%s: $ref %q is not one of the document's $defs", at, ref)
		}
		if node.ref, err = c.def(name); err != nil {
			return err
		}
	}
	switch types := schema["type"].(type) {
	case string:
		node.types = []string{types}
	case []any:
		for _, t := range types {
			node.types = append(node.types, fmt.Sprint(t))
		}
	}
	if properties, ok := schema["properties"].(map[string]any); ok {
		node.properties = map[string]*schemaNode{}
		for name, sub := range properties {
			if node.properties[name], err = c.compile(sub, at+"/properties/"+name); err != nil {
				return err
			}
		}
	}
	if required, ok := schema["required"].([]any); ok {
		for _, name := range required {
			node.required = append(node.required, fmt.Sprint(name))
		}
	}
	if additional, ok := schema["additionalProperties"]; ok {
		if additional == false {
			node.noAdditional = true
		} else if node.additional, err = c.compile(additional, at+"/additionalProperties"); err != nil {
			return err
		}
	}
	for keyword, target := range map[string]**schemaNode{"propertyNames": &node.propertyNames, "items": &node.items, "not": &node.not,
		"if": &node.ifNode, "then": &node.then, "else": &node.elseOf} {
		if sub, ok := schema[keyword]; ok {
			if *target, err = c.compile(sub, at+"/"+keyword); err != nil {
				return err
			}
		}
	}
	for keyword, target := range map[string]*[]*schemaNode{"anyOf": &node.anyOf, "oneOf": &node.oneOf, "allOf": &node.allOf} {
		if list, ok := schema[keyword].([]any); ok {
			for i, sub := range list {
				compiled, err := c.compile(sub, fmt.Sprintf("%s/%s/%d", at, keyword, i))
				if err != nil {
					return err
				}
				*target = append(*target, compiled)
			}
		}
	}
	for keyword, target := range map[string]*int{"minItems": &node.minItems, "maxItems": &node.maxItems, "minLength": &node.minLength, "maxLength": &node.maxLength} {
		if n, ok := schema[keyword].(json.Number); ok {
			count, err := strconv.Atoi(n.String())
			if err != nil {
				return fmt.Errorf("%s/%s: %w", at, keyword, err)
			}
			*target = count
		}
	}
	for keyword, target := range map[string]**float64{"minimum": &node.minimum, "maximum": &node.maximum} {
		if n, ok := schema[keyword].(json.Number); ok {
			bound, err := n.Float64()
			if err != nil {
				return fmt.Errorf("%s/%s: %w", at, keyword, err)
			}
			*target = &bound
		}
	}
	node.uniqueItems = schema["uniqueItems"] == true
	if pattern, ok := schema["pattern"].(string); ok {
		if node.pattern, ok = c.patterns[pattern]; !ok {
			if node.pattern, err = compilePattern(pattern); err != nil {
				return fmt.Errorf("%s/pattern: %w", at, err)
			}
			c.patterns[pattern] = node.pattern
		}
	}
	if enum, ok := schema["enum"].([]any); ok {
		node.enum = enum
	}
	node.constant, node.hasConst = schema["const"]
	return nil
}

// check appends the ways value differs from the schema, each at its instance path (dotted, as
// the Node host's zod paths are).
func (n *schemaNode) check(value any, path []string, found []eventIssue) []eventIssue {
	if n == nil {
		return found
	}
	issue := func(format string, args ...any) {
		found = append(found, eventIssue{Path: instancePath(path), Message: fmt.Sprintf(format, args...)})
	}
	if n.never {
		issue("not allowed")
		return found
	}
	if n.ref != nil {
		found = n.ref.check(value, path, found)
	}
	if len(n.types) > 0 && !hasType(value, n.types) {
		issue("got %s, want %s", typeOf(value), strings.Join(n.types, " or "))
		return found
	}
	if n.hasConst && !jsonEqual(value, n.constant) {
		issue("value must be %s", show(n.constant))
	}
	if n.enum != nil && !inEnum(value, n.enum) {
		shown := make([]string, len(n.enum))
		for i, v := range n.enum {
			shown[i] = show(v)
		}
		issue("value must be one of %s", strings.Join(shown, ", "))
	}
	switch v := value.(type) {
	case map[string]any:
		found = n.checkObject(v, path, found)
	case []any:
		if n.minItems >= 0 && len(v) < n.minItems {
			issue("minItems: got %d, want %d", len(v), n.minItems)
		}
		if n.maxItems >= 0 && len(v) > n.maxItems {
			issue("maxItems: got %d, want %d", len(v), n.maxItems)
		}
		if n.uniqueItems {
			for i := range v {
				for j := i + 1; j < len(v); j++ {
					if jsonEqual(v[i], v[j]) {
						issue("items at %d and %d are equal", i, j)
					}
				}
			}
		}
		if n.items != nil {
			for i, item := range v {
				found = n.items.check(item, append(path[:len(path):len(path)], strconv.Itoa(i)), found)
			}
		}
	case string:
		length := utf8.RuneCountInString(v)
		if n.minLength >= 0 && length < n.minLength {
			issue("minLength: got %d, want %d", length, n.minLength)
		}
		if n.maxLength >= 0 && length > n.maxLength {
			issue("maxLength: got %d, want %d", length, n.maxLength)
		}
		if n.pattern != nil && !n.pattern.MatchString(v) {
			issue("%s does not match pattern %s", show(v), show(n.pattern.String()))
		}
	case json.Number:
		f, _ := v.Float64()
		if n.minimum != nil && f < *n.minimum {
			issue("minimum: got %s, want %v", v, *n.minimum)
		}
		if n.maximum != nil && f > *n.maximum {
			issue("maximum: got %s, want %v", v, *n.maximum)
		}
	}
	for _, sub := range n.allOf {
		found = sub.check(value, path, found)
	}
	if len(n.anyOf) > 0 {
		var causes []eventIssue
		matched := false
		for _, sub := range n.anyOf {
			branch := sub.check(value, path, nil)
			if len(branch) == 0 {
				matched = true
				break
			}
			causes = append(causes, branch...)
		}
		if !matched {
			found = append(found, causes...)
		}
	}
	if len(n.oneOf) > 0 {
		var causes []eventIssue
		matches := 0
		for _, sub := range n.oneOf {
			branch := sub.check(value, path, nil)
			if len(branch) == 0 {
				matches++
			}
			causes = append(causes, branch...)
		}
		switch {
		case matches == 0:
			found = append(found, causes...)
		case matches > 1:
			issue("valid against %d of oneOf's schemas, want one", matches)
		}
	}
	if n.not != nil && len(n.not.check(value, path, nil)) == 0 {
		issue("must not be valid against the schema of 'not'")
	}
	if n.ifNode != nil {
		if len(n.ifNode.check(value, path, nil)) == 0 {
			found = n.then.check(value, path, found)
		} else {
			found = n.elseOf.check(value, path, found)
		}
	}
	return found
}

func (n *schemaNode) checkObject(v map[string]any, path []string, found []eventIssue) []eventIssue {
	where := instancePath(path)
	for _, name := range n.required {
		if _, ok := v[name]; !ok {
			found = append(found, eventIssue{Path: where, Message: fmt.Sprintf("missing property '%s'", name)})
		}
	}
	var extra []string
	for name, item := range v {
		at := append(path[:len(path):len(path)], name)
		if n.propertyNames != nil {
			found = n.propertyNames.check(name, at, found)
		}
		if sub, ok := n.properties[name]; ok {
			found = sub.check(item, at, found)
		} else if n.noAdditional {
			extra = append(extra, "'"+name+"'")
		} else if n.additional != nil {
			found = n.additional.check(item, at, found)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		found = append(found, eventIssue{Path: where, Message: fmt.Sprintf("additional properties %s not allowed", strings.Join(extra, ", "))})
	}
	return found
}

// instancePath: where an issue is, dotted as the Node host's zod paths are, "(envelope)" for the whole.
func instancePath(path []string) string {
	if where := strings.Join(path, "."); where != "" {
		return where
	}
	return "(envelope)"
}

func typeOf(value any) string {
	switch v := value.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", value)
}

func hasType(value any, types []string) bool {
	actual := typeOf(value)
	for _, want := range types {
		if want == actual || want == "number" && actual == "integer" {
			return true
		}
	}
	return false
}

// isInteger: a number with no fraction (1.0 is an integer in JSON Schema).
func isInteger(n json.Number) bool {
	if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return true
	}
	f, err := n.Float64()
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

func inEnum(value any, enum []any) bool {
	for _, allowed := range enum {
		if jsonEqual(value, allowed) {
			return true
		}
	}
	return false
}

// jsonEqual: JSON equality, numbers by value.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, errX := x.Float64()
		fy, errY := y.Float64()
		return errX == nil && errY == nil && fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for key, item := range x {
			other, ok := y[key]
			if !ok || !jsonEqual(item, other) {
				return false
			}
		}
		return true
	}
	return a == b
}

func show(value any) string {
	if s, ok := value.(string); ok {
		return "'" + s + "'"
	}
	encoded, _ := json.Marshal(value)
	return string(encoded)
}

// compilePattern: Go's regexp, with repeat counts above its limit of 1000 capped there (the
// protocol's `{1,1024}` of a passkey credential id): a value past 1000 repeats is then refused,
// stricter than the protocol by what no real value comes near.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(bigRepeat.ReplaceAllStringFunc(pattern, func(repeat string) string {
		parts := bigRepeat.FindStringSubmatch(repeat)
		return "{" + parts[1] + ",1000}"
	}))
}

var bigRepeat = regexp.MustCompile(`\{(\d+),(\d{4,})\}`)
