// Package gows holds what both of the GOWS engine's packages read from its module's root: the
// engine RPC's JSON Schema, generated from protocol (see PROTOCOL.md).
package gows

import _ "embed"

// RPCSchema is protocol's schemas as JSON Schema, with protocol's table of engine command ops
// (x-operations, x-engine-operations): the engine pod checks every event it makes against it and
// routes every command by it, so it is embedded rather than read at run time.
//
//go:embed engine-rpc.schema.json
var RPCSchema []byte
