// Package rpcschema is the Go side of the engine RPC's schemas: types.go, generated from
// engine-rpc.schema.json (itself generated from protocol's zod schemas), holds a type for every
// schema there and `Args<Op>` for every engine command's args. Engine methods take these as their
// params; the method table decodes a request's JSON into them once (internal/engine/methods.go).
//
// Regenerate after the schema changes (TestTypesAreCurrent fails until then):
//
//go:generate go run ../../cmd/gen-rpc-types ../../engine-rpc.schema.json types.go
package rpcschema
