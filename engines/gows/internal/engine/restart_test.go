package engine

import (
	"reflect"
	"sync"
	"testing"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

// statusHost records the statuses an engine reports; nothing else of the host is used here.
type statusHost struct {
	hostapi.Host
	mu       sync.Mutex
	statuses []string
}

func (h *statusHost) SetStatus(status, _ string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.statuses = append(h.statuses, status)
}

// An engine stopped and run again in the same process (an engine pod that lost its session lease
// and took it back) reports WORKING again once connected: the chaos tier's "engine pod cut off
// from NATS" left such a session STARTING for good when it did not.
func TestWorkingAgainAfterStopAndStart(t *testing.T) {
	host := &statusHost{}
	e := &Engine{host: host}
	e.handleEvent(&events.Connected{})
	e.stop()
	e.mu.Lock()
	e.beginRun()
	e.mu.Unlock()
	e.handleEvent(&events.Connected{})
	if want := []string{"WORKING", "WORKING"}; !reflect.DeepEqual(host.statuses, want) {
		t.Fatalf("statuses reported: %v, want %v", host.statuses, want)
	}
}
