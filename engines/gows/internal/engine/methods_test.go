package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/switchboard/engines/gows"
	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/natshost"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Every op protocol's catalog gives GOWS reaches an engine method this binary has: adding an op
// to the catalog without its method here fails, naming both.
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
		_, lifecycle := lifecycleMethods[*operation.Method]
		_, optional := optionalMethods[*operation.Method]
		if !lifecycle && !optional {
			t.Errorf("protocol's catalog gives GOWS %s, whose engine method %s is in neither lifecycleMethods nor optionalMethods (methods.go)", name, *operation.Method)
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
	if len(methods) != len(optionalMethods) || methods[0] > methods[len(methods)-1] {
		t.Errorf("capabilities answered %v; want the %d optional methods, sorted", methods, len(optionalMethods))
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
