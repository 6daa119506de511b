package rpcschema_test

import (
	"os"
	"testing"

	gows "github.com/switchboard/engines/gows"
	"github.com/switchboard/engines/gows/internal/rpcschema/gen"
)

// The generated types are the schema's: a schema regenerated from protocol without `go generate`
// here fails this, so Go never reads params in a shape protocol no longer sends.
func TestTypesAreCurrent(t *testing.T) {
	want, err := gen.Types(gows.RPCSchema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("types.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("internal/rpcschema/types.go is stale against engine-rpc.schema.json: run `go generate ./internal/rpcschema` in engines/gows")
	}
}
