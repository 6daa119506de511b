package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/switchboard/engines/gows"
	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/natshost"
	"github.com/switchboard/engines/gows/internal/rpcschema"
	"github.com/switchboard/engines/gows/internal/rpcschema/gen"
)

// The method table is the catalog's: a schema regenerated from protocol (an op added to GOWS's
// catalog entry, or taken out) without `go generate` here fails this, naming the command.
func TestMethodTableIsCurrent(t *testing.T) {
	want, err := gen.Methods(gows.RPCSchema, "GOWS")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("methods_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("internal/engine/methods_gen.go is stale against engine-rpc.schema.json: run `go generate ./internal/engine` in engines/gows")
	}
}

// Every op protocol's catalog gives GOWS reaches an engine method this binary has, the one the
// host's routing (natshost.LoadOperations) names.
func TestEveryCatalogOperationHasItsMethod(t *testing.T) {
	operations, err := natshost.LoadOperations(gows.RPCSchema, "GOWS")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range operations.Served() {
		operation, _ := operations.Lookup(name)
		if operation.Method == nil {
			continue // the host answers it (me)
		}
		if _, ok := catalogMethods[*operation.Method]; !ok {
			t.Errorf("protocol's catalog gives GOWS %s, whose engine method %s is not in catalogMethods (methods_gen.go)", name, *operation.Method)
		}
	}
}

// `capabilities` names exactly the optional methods, which the TypeScript proxy forwards.
func TestCapabilitiesNameTheOptionalMethods(t *testing.T) {
	engine := &Engine{}
	answer, err := engine.Handle(t.Context(), "capabilities", nil)
	if err != nil {
		t.Fatal(err)
	}
	methods := answer.(rpcschema.Capabilities).Methods
	want := len(catalogMethods) - len(everyEnginesMethods)
	if len(methods) != want || methods[0] > methods[len(methods)-1] || slices.Contains(methods, "sendText") {
		t.Errorf("capabilities answered %v; want the %d optional methods, sorted", methods, want)
	}
	if _, err := engine.Handle(t.Context(), "noSuchMethod", nil); err != errUnknownMethod {
		t.Errorf("an unknown method: %v; want errUnknownMethod", err)
	}
}

// A method's params are its rpcschema type: the stdio RPC's JSON is decoded into it once, by the
// method table; the nats pod's typed params reach the method as they are; JSON that does not fit
// the type is INVALID naming the field, before the method runs.
func TestMethodParamsAreTheirSchemaType(t *testing.T) {
	var got []rpcschema.ArgsChatTyping
	m := typed("setTyping", func(_ *Engine, _ context.Context, args rpcschema.ArgsChatTyping) (any, error) {
		got = append(got, args)
		return nil, nil
	})
	if _, err := m(&Engine{}, t.Context(), json.RawMessage(`{"chatId":"1@c.us","typing":true}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := m(&Engine{}, t.Context(), rpcschema.ArgsChatTyping{ChatID: "2@c.us"}); err != nil {
		t.Fatal(err)
	}
	want := []rpcschema.ArgsChatTyping{{ChatID: "1@c.us", Typing: true}, {ChatID: "2@c.us"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the method got %+v; want %+v", got, want)
	}
	_, err := m(&Engine{}, t.Context(), json.RawMessage(`{"chatId":7}`))
	var refusal *CommandError
	if !errors.As(err, &refusal) || refusal.Code != hostapi.Invalid || refusal.Message != "setTyping: chatId: must be a string, not number" {
		t.Errorf("params of the wrong type: %v; want INVALID naming chatId", err)
	}
	if len(got) != 2 {
		t.Errorf("the method ran on params of the wrong type")
	}
	if _, err := m(&Engine{}, t.Context(), rpcschema.ArgsChatRead{}); err == nil {
		t.Errorf("params of another method's type were taken")
	}
}
