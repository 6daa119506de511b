// Command switchboard-gows is Switchboard's GOWS engine: one WhatsApp account on whatsmeow,
// driven by its host over the engine RPC (PROTOCOL.md).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "stdio" {
		fmt.Fprintln(os.Stderr, "usage: switchboard-gows stdio   (the engine RPC on stdin/stdout, see PROTOCOL.md)")
		os.Exit(2)
	}
	log := NewLogger(os.Stderr, os.Getenv("SWITCHBOARD_GOWS_DEBUG") == "1")
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	engine := NewEngine(log, os.Getenv)
	peer := NewPeer(os.Stdout, engine.Handle, log)
	engine.Attach(peer)
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
	engine.Shutdown()
}
