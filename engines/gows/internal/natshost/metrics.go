package natshost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/switchboard/engines/gows/internal/pacing"
)

// queueMetrics is paced sending's three series, served at the health port's `/metrics` in the
// Prometheus text format: the same names, help, labels and buckets as the Node pods'
// (engine-pod/src/sending/queue-metrics.ts), so one dashboard reads either; the engine-pod test
// of the Go pod (test/gows/nats-pod.test.ts) holds the two to each other. Written here rather
// than with client_golang: three series are not worth the megabytes of the pod's 25-MiB budget
// that the library and its default collectors would take.
type queueMetrics struct {
	session string

	mu   sync.Mutex
	held map[pacing.HoldReason]uint64
	// waits counts observations per bucket (not cumulative); the last is above every bound.
	waits   []uint64
	waitSum float64
	waitN   uint64
}

// waitBuckets are queue-metrics.ts's: from a send that goes at once to one held by the warm-up's daily cap.
var waitBuckets = []float64{0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400}

const (
	depthHelp = "Paced sending: the sends waiting in each session's queue"
	waitHelp  = "Paced sending: how long a send waited in its session's queue before it went out"
	heldHelp  = "Paced sending: sends held for their slot, by what held them (rate: the pause and per-minute limits; warmup: the warm-up's daily cap)"
)

func newQueueMetrics(session string) *queueMetrics {
	return &queueMetrics{session: session, held: map[pacing.HoldReason]uint64{}, waits: make([]uint64, len(waitBuckets)+1)}
}

// heldFor counts a send held for its slot (once per send and reason, as the lane reports it).
func (m *queueMetrics) heldFor(reason pacing.HoldReason) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held[reason]++
}

// waited records how long a send that went out waited in the queue.
func (m *queueMetrics) waited(ms int64) {
	if m == nil {
		return
	}
	seconds := math.Max(0, float64(ms)) / 1000
	m.mu.Lock()
	defer m.mu.Unlock()
	bucket := len(waitBuckets)
	for i, bound := range waitBuckets {
		if seconds <= bound {
			bucket = i
			break
		}
	}
	m.waits[bucket]++
	m.waitSum += seconds
	m.waitN++
}

// render is the exposition: every family's HELP and TYPE, samples once there are any (as
// prom-client writes them); depth is the queue's length now (none while it is empty).
func (m *queueMetrics) render(depth int) string {
	label := `session="` + escapeLabel(m.session) + `"`
	var out strings.Builder
	family := func(name, help, kind string) {
		fmt.Fprintf(&out, "# HELP %s %s\n# TYPE %s %s\n", name, strings.ReplaceAll(help, `\`, `\\`), name, kind)
	}
	family("switchboard_send_queue_depth", depthHelp, "gauge")
	if depth > 0 {
		fmt.Fprintf(&out, "switchboard_send_queue_depth{%s} %d\n", label, depth)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	family("switchboard_send_queue_wait_seconds", waitHelp, "histogram")
	if m.waitN > 0 {
		var cumulative uint64
		for i, bound := range waitBuckets {
			cumulative += m.waits[i]
			fmt.Fprintf(&out, "switchboard_send_queue_wait_seconds_bucket{le=\"%s\",%s} %d\n", strconv.FormatFloat(bound, 'g', -1, 64), label, cumulative)
		}
		fmt.Fprintf(&out, "switchboard_send_queue_wait_seconds_bucket{le=\"+Inf\",%s} %d\n", label, m.waitN)
		fmt.Fprintf(&out, "switchboard_send_queue_wait_seconds_sum{%s} %s\n", label, strconv.FormatFloat(m.waitSum, 'g', -1, 64))
		fmt.Fprintf(&out, "switchboard_send_queue_wait_seconds_count{%s} %d\n", label, m.waitN)
	}
	family("switchboard_send_queue_held_total", heldHelp, "counter")
	for _, reason := range []pacing.HoldReason{pacing.HeldByRate, pacing.HeldByWarmup} {
		if n := m.held[reason]; n > 0 {
			fmt.Fprintf(&out, "switchboard_send_queue_held_total{%s,reason=\"%s\"} %d\n", label, reason, n)
		}
	}
	return out.String()
}

// escapeLabel escapes a label value as the text format asks (a session name never needs it).
func escapeLabel(value string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(value)
}
