// Command gen-rpc-types writes internal/rpcschema/types.go, the Go types of the engine RPC and of
// every engine command's args, from engine-rpc.schema.json (generated from protocol), with
// go-jsonschema's generator. Run through `go generate ./internal/rpcschema`; the package's test
// fails when the file is stale against the schema.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard/engines/gows/internal/rpcschema/gen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen-rpc-types <engine-rpc.schema.json> <types.go>")
		os.Exit(2)
	}
	schema, err := os.ReadFile(os.Args[1])
	if err == nil {
		var source []byte
		if source, err = gen.Types(schema); err == nil {
			err = os.WriteFile(os.Args[2], source, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-rpc-types:", err)
		os.Exit(1)
	}
}
