package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"os"

	"github.com/switchboard/engines/gows/natshost"
)

// version is `environment.version` of every event; the image build sets it (-X main.version=...).
var version = "0.0.0"

// rpcSchema is the protocol's schemas as JSON Schema (generated; see PROTOCOL.md): the pod checks
// every event against it before it goes out.
//
//go:embed engine-rpc.schema.json
var rpcSchema []byte

// runNats is `switchboard-gows nats`: the engine as a cluster-mode engine pod of its own.
func runNats(ctx context.Context, log *Logger) int {
	cfg, err := natshost.ReadConfig(os.Getenv)
	if err != nil {
		log.Error(err.Error())
		return 1
	}
	cfg.Version = version
	log = log.With("session", cfg.Session, "pod", cfg.PodName)
	checks, err := natshost.NewEventChecks(rpcSchema)
	if err != nil {
		log.Error(err.Error())
		return 1
	}
	engine := NewEngine(log, os.Getenv)
	pod := natshost.NewPod(cfg, engineFunc(engine), checks, log)
	engine.Attach(pod.Host)
	return pod.Run(ctx)
}

// engineFunc gives the pod the engine's methods, its refusals as the pod's CommandErrors with the
// protocol's codes (the RPC's first names BAD_REQUEST and NOT_READY read as INVALID and WRONG_STATUS,
// as the TypeScript proxy reads them).
func engineFunc(engine *Engine) natshost.EngineFunc {
	return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		result, err := engine.Handle(ctx, method, params)
		if err == nil {
			return result, nil
		}
		var refusal *CommandError
		if !errors.As(err, &refusal) {
			return nil, err
		}
		code := refusal.Code
		switch code {
		case "BAD_REQUEST":
			code = "INVALID"
		case "NOT_READY":
			code = "WRONG_STATUS"
		case "ENGINE_ERROR":
			return nil, err
		}
		return nil, &natshost.CommandError{Code: code, Message: refusal.Message, Details: refusal.Details}
	}
}
