// Command switchboard-gows is Switchboard's GOWS engine: one WhatsApp account on whatsmeow,
// driven by its host over the engine RPC (PROTOCOL.md), or its own cluster-mode engine pod on
// NATS (`nats`, internal/natshost/).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard/engines/gows/internal/engine"
)

func main() {
	mode := ""
	if len(os.Args) >= 2 {
		mode = os.Args[1]
	}
	log := engine.NewLogger(os.Stderr, os.Getenv("SWITCHBOARD_GOWS_DEBUG") == "1")
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	switch mode {
	case "stdio":
		runStdio(ctx, log)
	case "nats":
		os.Exit(runNats(ctx, log))
	default:
		fmt.Fprintln(os.Stderr, "usage: switchboard-gows stdio   (the engine RPC on stdin/stdout, see PROTOCOL.md)\n"+
			"       switchboard-gows nats    (a cluster-mode engine pod: the session on NATS, see internal/natshost/README.md)")
		os.Exit(2)
	}
}

func runStdio(ctx context.Context, log *engine.Logger) {
	eng := engine.NewEngine(log, os.Getenv)
	peer := engine.NewPeer(os.Stdout, eng.Handle, log)
	eng.Attach(engine.RPCHost{Peer: peer})
	done := make(chan error, 1)
	go func() { done <- peer.Serve(ctx, os.Stdin) }()
	select {
	case err := <-done:
		if err != nil {
			log.Error("engine RPC input failed", "err", err.Error())
		}
	case <-ctx.Done():
	}
	// stdin closed (the host is gone or done) or a signal: disconnect and exit.
	eng.Shutdown()
}
