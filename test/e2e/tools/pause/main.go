// Command pause is the process every pod sandbox runs (the role of registry.k8s.io/pause): it
// holds the pod's namespaces open, reaps the zombies of processes that die in its PID namespace,
// and exits on SIGINT or SIGTERM. Ours, a few lines of Go, because no registry is reachable here
// to pull the upstream image (whose pause.c does the same); built static into a one-file image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
