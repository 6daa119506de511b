// Package gen turns engine-rpc.schema.json into Go types with go-jsonschema: cmd/gen-rpc-types
// writes them, and rpcschema's test compares them with the file it wrote.
package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atombender/go-jsonschema/pkg/generator"
	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// Types is the Go source of every schema of the engine RPC (the document's `$defs`) and of every
// engine command's args (`args.<op>`, from SessionCommand's alternatives), in package rpcschema.
func Types(schema []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("engine RPC schema: %w", err)
	}
	defs, _ := doc["$defs"].(map[string]any)
	if defs == nil {
		return nil, fmt.Errorf("engine RPC schema: no $defs")
	}
	ops, err := commandArgs(defs)
	if err != nil {
		return nil, err
	}
	properties := map[string]any{}
	for name := range defs {
		properties[name] = map[string]any{"$ref": "#/$defs/" + name}
	}
	for op, args := range ops {
		defs["args."+op] = args
		properties["args."+op] = map[string]any{"$ref": "#/$defs/args." + op}
	}
	root := map[string]any{
		"$schema": doc["$schema"], "$id": "engine-rpc", "$defs": simplify(defs).(map[string]any),
		"type": "object", "properties": properties,
	}
	encoded, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	parsed, err := schemas.FromJSONReader(bytes.NewReader(encoded))
	if err != nil {
		return nil, fmt.Errorf("engine RPC schema: %w", err)
	}
	g, err := generator.New(generator.Config{
		DefaultPackageName: "github.com/switchboard/engines/gows/internal/rpcschema",
		DefaultOutputName:  "types.go",
		Tags:               []string{"json"},
		OnlyModels:         true,
		Capitalizations:    []string{"ID", "IDs", "URL", "JID", "LID"},
		Warner:             func(string) {},
	})
	if err != nil {
		return nil, err
	}
	if err := g.AddFile("engine-rpc.schema.json", parsed); err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	sources, err := g.Sources()
	if err != nil {
		return nil, err
	}
	for _, source := range sources {
		return source, nil
	}
	return nil, fmt.Errorf("generating: no output")
}

// commandArgs: each engine command's args schema by its op, from SessionCommand (a union of
// `{op, args}` objects, the engine's and the host's).
func commandArgs(defs map[string]any) (map[string]any, error) {
	args := map[string]any{}
	var walk func(schema any)
	walk = func(schema any) {
		object, _ := schema.(map[string]any)
		for _, key := range []string{"anyOf", "oneOf"} {
			alternatives, _ := object[key].([]any)
			for _, alternative := range alternatives {
				walk(alternative)
			}
		}
		properties, _ := object["properties"].(map[string]any)
		op, _ := properties["op"].(map[string]any)
		name, _ := op["const"].(string)
		if name != "" && properties["args"] != nil {
			args[name] = properties["args"]
		}
	}
	walk(defs["SessionCommand"])
	if len(args) == 0 {
		return nil, fmt.Errorf("engine RPC schema: SessionCommand names no op with args")
	}
	return args, nil
}

// simplify makes zod's output what go-jsonschema types well (it makes an anyOf an interface{}):
//   - a field with a default (zod's output marks it required) may be left out, a pointer: the
//     host sends parsed args, defaults in, and a method reads a missing one as the default;
//   - a field that may be null or left out (`anyOf: [X, {type: null}]` or `type: [X, "null"]`,
//     not required) is X left out, a pointer either way;
//   - a union of objects (a discriminated union, `send.media`'s kinds) is one object with every
//     alternative's fields, required where all require it, a discriminator an enum of its values.
//
// The types are for reading params: a required field that may be null keeps its anyOf.
func simplify(schema any) any {
	switch value := schema.(type) {
	case []any:
		for i, item := range value {
			value[i] = simplify(item)
		}
		return value
	case map[string]any:
		for key, item := range value {
			value[key] = simplify(item)
		}
		if properties, ok := value["properties"].(map[string]any); ok {
			required := map[string]bool{}
			names, _ := value["required"].([]any)
			for _, name := range names {
				required[name.(string)] = true
			}
			kept := []any{}
			for _, name := range names {
				field, _ := properties[name.(string)].(map[string]any)
				if _, defaulted := field["default"]; !defaulted {
					kept = append(kept, name)
				}
			}
			if len(names) > 0 {
				value["required"] = kept
			}
			for name, property := range properties {
				if field, ok := property.(map[string]any); ok {
					if _, defaulted := field["default"]; defaulted {
						delete(field, "default")
						required[name] = false
					}
				}
				if other := nonNull(property); other != nil && !required[name] {
					properties[name] = other
				}
			}
		}
		for _, key := range []string{"oneOf", "anyOf"} {
			if merged := mergeObjects(value[key]); merged != nil {
				delete(value, key)
				maps.Copy(value, merged)
			}
		}
		return value
	}
	return schema
}

// nonNull: X of `anyOf: [X, {type: null}]` (with the outer schema's description) or of
// `type: [X, "null"]`; nil otherwise.
func nonNull(schema any) map[string]any {
	object, _ := schema.(map[string]any)
	if kinds, ok := object["type"].([]any); ok && len(kinds) == 2 && slices.Contains(kinds, any("null")) {
		merged := maps.Clone(object)
		merged["type"] = kinds[1-slices.Index(kinds, any("null"))]
		return merged
	}
	alternatives, _ := object["anyOf"].([]any)
	if len(alternatives) != 2 {
		return nil
	}
	null := slices.IndexFunc(alternatives, func(a any) bool {
		alternative, _ := a.(map[string]any)
		return len(alternative) == 1 && alternative["type"] == "null"
	})
	if null < 0 {
		return nil
	}
	other, _ := alternatives[1-null].(map[string]any)
	merged := maps.Clone(other)
	for key, item := range object {
		if key != "anyOf" {
			merged[key] = item
		}
	}
	return merged
}

// mergeObjects: one object schema of alternatives that are all objects with properties; nil otherwise.
func mergeObjects(schema any) map[string]any {
	alternatives, _ := schema.([]any)
	if len(alternatives) < 2 {
		return nil
	}
	properties := map[string]any{}
	count := map[string]int{}
	for _, a := range alternatives {
		alternative, _ := a.(map[string]any)
		fields, ok := alternative["properties"].(map[string]any)
		if !ok || alternative["type"] != "object" {
			return nil
		}
		for name, field := range fields {
			properties[name] = mergeField(properties[name], field)
		}
		names, _ := alternative["required"].([]any)
		for _, name := range names {
			count[name.(string)]++
		}
	}
	var required []any
	for name, n := range count {
		if n == len(alternatives) {
			required = append(required, name)
		}
	}
	slices.SortFunc(required, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	return map[string]any{"type": "object", "properties": properties, "required": required}
}

// mergeField: a field two alternatives both have; a discriminator's consts become an enum.
func mergeField(seen, field any) any {
	if seen == nil {
		return field
	}
	first, _ := seen.(map[string]any)
	next, _ := field.(map[string]any)
	values := func(schema map[string]any) []any {
		if value, ok := schema["const"]; ok {
			return []any{value}
		}
		enum, _ := schema["enum"].([]any)
		return enum
	}
	if a, b := values(first), values(next); a != nil && b != nil {
		merged := maps.Clone(first)
		delete(merged, "const")
		merged["enum"] = append(slices.Clone(a), b...)
		return merged
	}
	return seen
}
