package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// method is one engine RPC method: its params in (a stdio request's JSON, or the typed params
// the nats pod built), the answer out.
type method func(e *Engine, ctx context.Context, params any) (any, error)

// typed is a method whose params are P, a type of rpcschema (generated from protocol's schemas):
// JSON is decoded into P here, once, for every method; params already of type P are used as they are.
func typed[P any](name string, f func(e *Engine, ctx context.Context, params P) (any, error)) method {
	return func(e *Engine, ctx context.Context, params any) (any, error) {
		switch given := params.(type) {
		case P:
			return f(e, ctx, given)
		case *P:
			return f(e, ctx, *given)
		case json.RawMessage:
			var decoded P
			if len(given) > 0 && string(given) != "null" {
				if err := rpcschema.Decode(given, &decoded); err != nil {
					return nil, commandError(hostapi.Invalid, "%s: %v", name, err)
				}
			}
			return f(e, ctx, decoded)
		case nil:
			var zero P
			return f(e, ctx, zero)
		}
		return nil, fmt.Errorf("%s: params of type %T, not %T", name, params, *new(P))
	}
}

// value is what an optional param holds, its zero value when it was left out.
func value[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// bare is a method without params.
func bare(f func(e *Engine, ctx context.Context) (any, error)) method {
	return func(e *Engine, ctx context.Context, _ any) (any, error) { return f(e, ctx) }
}

// nothing answers null for a method whose result is only whether it failed.
func nothing[P any](f func(e *Engine, ctx context.Context, params P) error) func(e *Engine, ctx context.Context, params P) (any, error) {
	return func(e *Engine, ctx context.Context, params P) (any, error) { return nil, f(e, ctx, params) }
}

// lifecycleMethods are the methods that are no op of the catalog: the connection's life.
var lifecycleMethods = map[string]method{
	"start":  typed("start", nothing((*Engine).start)),
	"stop":   bare(func(e *Engine, ctx context.Context) (any, error) { e.stop(); return nil, nil }),
	"logout": bare(func(e *Engine, ctx context.Context) (any, error) { return nil, e.logout(ctx) }),
}

// catalogMethods (methods_gen.go) are the methods of the ops protocol's engine catalog gives GOWS,
// generated from it: an op is declared once, in the catalog, and carried out by the *Engine method
// of its method's name, whose params type the table infers. A catalog op without that method does
// not compile; TestMethodTableIsCurrent fails while the table is stale against the schema.
//
//go:generate go run ../../cmd/gen-engine-methods ../../engine-rpc.schema.json methods_gen.go

// everyEnginesMethods are the catalog methods engine-pod's Engine interface requires of every engine:
// the proxy calls them unasked, so `capabilities`, which names what an engine may lack, leaves them out.
var everyEnginesMethods = []string{"qr", "requestCode", "sendText"}

// capabilities: the optional methods' names, sorted, as the host's `capabilities` request reads them.
func capabilities() []string {
	optional := maps.Clone(catalogMethods)
	for _, name := range everyEnginesMethods {
		delete(optional, name)
	}
	return slices.Sorted(maps.Keys(optional))
}

// Handle answers one host request (method names = the Engine interface's). params is the
// request's JSON (json.RawMessage) from the stdio RPC, or the method's rpcschema type in process.
func (e *Engine) Handle(ctx context.Context, name string, params any) (any, error) {
	if name == "capabilities" {
		return rpcschema.Capabilities{Methods: capabilities()}, nil
	}
	if m, ok := lifecycleMethods[name]; ok {
		return m(e, ctx, params)
	}
	if m, ok := catalogMethods[name]; ok {
		return m(e, ctx, params)
	}
	return nil, errUnknownMethod
}
