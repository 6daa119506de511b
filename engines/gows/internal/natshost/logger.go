// Package natshost is the GOWS engine as a cluster-mode engine pod: what engine-pod/src/pod/ and
// engine-pod/src/cluster/ do for the Node engines (the session lease, the command subject, the
// event stream, auth state in KV, media in the session's object store, the probes), and the
// EngineHost's share of the work (envelopes, event ids, status, the command rules, the calls app,
// the message history), in Go, around the engine's own methods.
package natshost

// Logger is the engine's log (one JSON object a line).
type Logger interface {
	Info(msg string, kv ...any)
	Warn(msg string, kv ...any)
	Error(msg string, kv ...any)
}
