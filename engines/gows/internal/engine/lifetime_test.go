package engine

import "testing"

// What whatsmeow's event handlers read from the service or write to the auth state runs under the
// engine's lifetime, which stop ends (not under a context that never ends).
func TestLifetimeEndsWithStop(t *testing.T) {
	e := &Engine{}
	life := e.lifetime()
	if life.Err() != nil {
		t.Fatalf("a running engine's lifetime is over: %v", life.Err())
	}
	if e.lifetime() != life {
		t.Errorf("lifetime changed while the engine runs")
	}
	e.stop()
	if life.Err() == nil {
		t.Errorf("stop left the lifetime running")
	}
	if e.lifetime().Err() == nil {
		t.Errorf("a stopped engine's handlers got a running lifetime")
	}
}
