package natshost

import (
	"strings"
	"testing"

	"github.com/switchboard/engines/gows/internal/pacing"
)

func TestQueueMetricsRenderCumulativeBucketsAndOnlyWhatHappened(t *testing.T) {
	m := newQueueMetrics("s1")
	empty := m.render(0)
	for _, family := range []string{"switchboard_send_queue_depth gauge", "switchboard_send_queue_wait_seconds histogram", "switchboard_send_queue_held_total counter"} {
		if !strings.Contains(empty, "# TYPE "+family+"\n") {
			t.Fatalf("no TYPE line for %q in:\n%s", family, empty)
		}
	}
	if strings.Contains(empty, "{") {
		t.Fatalf("samples before anything happened:\n%s", empty)
	}

	m.waited(5)           // 0.005 s: the first bucket
	m.waited(2_000)       // 2 s: le 2.5
	m.waited(100_000_000) // above every bound: +Inf only
	m.heldFor(pacing.HeldByWarmup)
	m.heldFor(pacing.HeldByWarmup)
	var nilMetrics *queueMetrics
	nilMetrics.waited(1) // a queue without metrics counts nothing, and does not fail
	got := m.render(3)
	for _, line := range []string{
		`switchboard_send_queue_depth{session="s1"} 3`,
		`switchboard_send_queue_wait_seconds_bucket{le="0.01",session="s1"} 1`,
		`switchboard_send_queue_wait_seconds_bucket{le="1",session="s1"} 1`,
		`switchboard_send_queue_wait_seconds_bucket{le="2.5",session="s1"} 2`,
		`switchboard_send_queue_wait_seconds_bucket{le="86400",session="s1"} 2`,
		`switchboard_send_queue_wait_seconds_bucket{le="+Inf",session="s1"} 3`,
		`switchboard_send_queue_wait_seconds_sum{session="s1"} 100002.005`,
		`switchboard_send_queue_wait_seconds_count{session="s1"} 3`,
		`switchboard_send_queue_held_total{session="s1",reason="warmup"} 2`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("missing %q in:\n%s", line, got)
		}
	}
	if strings.Contains(got, `reason="rate"`) {
		t.Errorf("a rate series without a rate hold:\n%s", got)
	}
	if escaped := escapeLabel("a\"b\\c\nd"); escaped != `a\"b\\c\nd` {
		t.Errorf("escapeLabel: %s", escaped)
	}
}
