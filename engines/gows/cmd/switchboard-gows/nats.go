package main

import (
	"context"
	"errors"
	"os"
	"runtime/debug"

	"github.com/switchboard/engines/gows"
	"github.com/switchboard/engines/gows/internal/engine"
	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/natshost"
)

// version is `environment.version` of every event; the image build sets it (-X main.version=...).
var version = "0.0.0"

// runNats is `switchboard-gows nats`: the engine as a cluster-mode engine pod of its own.
func runNats(ctx context.Context, log *engine.Logger) int {
	// The collector's target: half the live heap again (GOGC=50) rather than Go's default of as much
	// again, unless GOGC says otherwise. An idle pod's live heap is a few MiB, so its RSS is mostly
	// that headroom and the binary: 24.0-24.3 MiB idle against 24.8-25.6 with the default, and a
	// busy burst's peak 27.7-27.9 MiB against 29.7-32.9 (the engine-pods bench, the same minutes),
	// with no CPU cost the bench's busy figure could tell from its noise. GOMEMLIMIT (4/5 of the
	// pod's memory limit, set by the operator) still bounds a large sync.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(50)
	}
	cfg, err := natshost.ReadConfig(os.Getenv)
	if err != nil {
		log.Error(err.Error())
		return 1
	}
	cfg.Version = version
	log = log.With("session", cfg.Session, "pod", cfg.PodName)
	checks, err := natshost.NewEventChecks(gows.RPCSchema)
	if err != nil {
		log.Error(err.Error())
		return 1
	}
	operations, err := natshost.LoadOperations(gows.RPCSchema, "GOWS")
	if err != nil {
		log.Error(err.Error())
		return 1
	}
	eng := engine.NewEngine(log, os.Getenv)
	pod := natshost.NewPod(cfg, engineFunc(eng), checks, operations, log)
	eng.Attach(pod.Host)
	return pod.Run(ctx)
}

// engineFunc gives the pod the engine's methods. A refusal reaches the reply as it is: the engine
// and the pod speak the same codes (hostapi.CommandError). An engine failure (ENGINE_ERROR) goes
// to the pod as a plain error, which it logs and answers without the cause.
func engineFunc(eng *engine.Engine) natshost.EngineFunc {
	return func(ctx context.Context, method string, params any) (any, error) {
		result, err := eng.Handle(ctx, method, params)
		var refusal *hostapi.CommandError
		if errors.As(err, &refusal) && refusal.Code == hostapi.EngineError {
			return nil, errors.New(refusal.Error())
		}
		return result, err
	}
}
