package engine

import (
	"testing"

	"github.com/switchboard/engines/gows"
	"github.com/switchboard/engines/gows/internal/natshost"
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
	methods := answer.(map[string]any)["methods"].([]string)
	if len(methods) != len(optionalMethods) || methods[0] > methods[len(methods)-1] {
		t.Errorf("capabilities answered %v; want the %d optional methods, sorted", methods, len(optionalMethods))
	}
	if _, err := engine.Handle(t.Context(), "noSuchMethod", nil); err != errUnknownMethod {
		t.Errorf("an unknown method: %v; want errUnknownMethod", err)
	}
}
