package natshost

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Operation is one engine command op as protocol's OPERATIONS declares it
// (protocol/src/engine-operations.ts), carried to Go by the generated engine-rpc.schema.json
// under `x-operations`.
type Operation struct {
	// Name is how a refusal calls it: "engine GOWS does not support <Name>".
	Name string `json:"name"`
	// Method is the engine method that carries it out; nil when the host answers it itself (`me`).
	Method *string `json:"method"`
	// Needs are the session statuses in which it makes sense; any other answers WRONG_STATUS.
	Needs []string `json:"needs"`
}

// Operations are every op of the protocol and those the engine catalog gives one engine
// (`x-engine-operations`): the host routes, checks and refuses commands by them, so an op is
// declared once, in protocol, for the TypeScript host and this one.
type Operations struct {
	engine string
	all    map[string]Operation
	served map[string]bool
}

// LoadOperations reads the ops of the engine RPC schema document for engine (GOWS).
func LoadOperations(schema []byte, engine string) (*Operations, error) {
	var doc struct {
		Operations map[string]Operation `json:"x-operations"`
		Engines    map[string][]string  `json:"x-engine-operations"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("engine RPC schema: %w", err)
	}
	served, ok := doc.Engines[engine]
	if !ok {
		return nil, fmt.Errorf("engine RPC schema: x-engine-operations has no %s", engine)
	}
	ops := &Operations{engine: engine, all: doc.Operations, served: map[string]bool{}}
	for _, name := range served {
		op, known := doc.Operations[name]
		if !known || len(op.Needs) == 0 {
			return nil, fmt.Errorf("engine RPC schema: %s's op %q has no entry with the statuses it needs in x-operations", engine, name)
		}
		ops.served[name] = true
	}
	return ops, nil
}

// Lookup gives op's entry and whether the engine serves it; an op the protocol lacks is named as itself.
func (o *Operations) Lookup(op string) (Operation, bool) {
	entry, known := o.all[op]
	if !known {
		entry = Operation{Name: op}
	}
	return entry, known && o.served[op]
}

// Served names the ops the engine serves, sorted.
func (o *Operations) Served() []string {
	names := make([]string, 0, len(o.served))
	for name := range o.served {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
