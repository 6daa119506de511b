// Command gen-engine-methods writes internal/engine/methods_gen.go, the engine's table of the
// methods of the ops protocol's catalog gives GOWS, from engine-rpc.schema.json (generated from
// protocol). Run through `go generate ./internal/engine`; the package's test fails when the file
// is stale against the schema.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard/engines/gows/internal/rpcschema/gen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen-engine-methods <engine-rpc.schema.json> <methods_gen.go>")
		os.Exit(2)
	}
	schema, err := os.ReadFile(os.Args[1])
	if err == nil {
		var source []byte
		if source, err = gen.Methods(schema, "GOWS"); err == nil {
			err = os.WriteFile(os.Args[2], source, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-engine-methods:", err)
		os.Exit(1)
	}
}
