package natshost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A lease lost to a NATS outage longer than its ttl (engine-pod/test/cluster/lease-lapse.test.ts,
// for the Go pod): the engine stops before anyone else can take the lease, the pod stays up
// un-ready, takes the lease again (a higher fencing token each time) and starts the engine from
// the stored pairing: no new QR, events flowing, twice over; a clean stop still releases it.
func TestPodRidesOutALeaseLostToANatsOutage(t *testing.T) {
	server := startNATS(t)
	proxy := startProxy(t, server)
	nc, err := nats.Connect(server)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	timing := LeaseTiming{TTL: 1500 * time.Millisecond, Renew: 300 * time.Millisecond, Retry: 100 * time.Millisecond}

	engine := &pairingEngine{}
	cfg := Config{Session: "lapse", NatsServers: []string{"nats://" + proxy.address()}, PodName: "engine-lapse", PodUID: "uid-lapse", Metadata: map[string]string{}, Version: "0.0.0"}
	log := &recordingLog{}
	pod := NewPod(cfg, engine.call, testChecks(t), testOperations(t), log).WithLeaseTiming(timing)
	engine.host = pod.Host
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	exited := make(chan int, 1)
	go func() { exited <- pod.Run(ctx) }()

	status := func() string {
		reply, err := nc.Request("sb.cmd.lapse", []byte(`{"op":"host.status"}`), 2*time.Second)
		if err != nil {
			return ""
		}
		var answer struct {
			Result struct {
				Status string `json:"status"`
			} `json:"result"`
		}
		_ = json.Unmarshal(reply.Data, &answer)
		return answer.Result.Status
	}
	eventually(t, "SCAN_QR_CODE", func() bool { return status() == "SCAN_QR_CODE" })
	engine.pair(t)
	eventually(t, "WORKING and ready", func() bool { return status() == "WORKING" && pod.Ready() })
	firstToken := pod.lease.FencingToken()
	// Paced sending changed while the pod runs: a later lease term's queue keeps it.
	if reply := command(t, nc, "lapse", "host.sendQueue.setConfig", map[string]any{"sending": map[string]any{"perMinute": 1, "maxQueued": 7}}); !reply.OK {
		t.Fatalf("setConfig refused: %+v", reply.Error)
	}

	// First lapse, with another holder waiting: when it gets the lease, the engine is stopped already.
	leases, err := openKV(context.Background(), nc, js, leaseBucket, timing.TTL, false)
	if err != nil {
		t.Fatal(err)
	}
	rival := newLease(leases, "lapse", "engine-rival", "", nopLog{})
	rival.ttl, rival.renew, rival.retry = timing.TTL, timing.Renew, timing.Retry
	proxy.cut()
	rivalToken, err := rival.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls := engine.lifecycle(); !slices.Equal(calls, []string{"start", "stop"}) {
		t.Fatalf("when another holder got the lease the engine had %v; want [start stop]", calls)
	}
	if pod.Ready() {
		t.Fatal("ready without the lease")
	}
	assertAlive(t, exited)

	// Back on NATS it waits, as at a fresh start, while the other holder has the lease.
	proxy.resume()
	eventually(t, "answering again, its engine STOPPED", func() bool { return status() == "STOPPED" })
	rival.Release(context.Background())
	eventually(t, "WORKING again with the stored pairing", func() bool { return status() == "WORKING" && pod.Ready() })
	secondToken := pod.lease.FencingToken()
	// The send queue runs again in this term, read back, paced by the config set in the first.
	if page := result[struct{ Total int }](t, command(t, nc, "lapse", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0})); page.Total != 0 {
		t.Fatalf("queue of the second term holds %d sends; want 0", page.Total)
	}
	if config := pod.currentQueue().configured(); config == nil || config.MaxQueued != 7 || config.PerMinute != 1 {
		t.Fatalf("the second term's queue paces by %+v; want the config set in the first (perMinute 1, maxQueued 7)", config)
	}
	if !(firstToken < rivalToken && rivalToken < secondToken) {
		t.Fatalf("fencing tokens %d, rival %d, %d: want each higher than the one before", firstToken, rivalToken, secondToken)
	}

	// Second lapse, nobody waiting: its own record taken back, or a new one once it aged out.
	proxy.cut()
	eventually(t, "the lease lost a second time", func() bool { return log.count("session lease lost") == 2 })
	proxy.resume()
	eventually(t, "WORKING after the second lapse", func() bool { return status() == "WORKING" && pod.Ready() })
	if third := pod.lease.FencingToken(); third <= secondToken {
		t.Fatalf("fencing token %d after the second lapse; want above %d", third, secondToken)
	}
	if calls := engine.lifecycle(); !slices.Equal(calls, []string{"start", "stop", "start", "stop", "start"}) {
		t.Fatalf("engine lifecycle %v; want it started once per lease, stopped once per loss", calls)
	}
	assertAlive(t, exited)

	// Every status of both gaps reached the stream, in order, and no QR was asked for again.
	want := []string{"STARTING", "SCAN_QR_CODE", "WORKING", "STOPPED", "STARTING", "WORKING", "STOPPED", "STARTING", "WORKING"}
	var got []string
	eventually(t, "every status in the stream", func() bool {
		got = storedStatuses(t, js, "lapse")
		return len(got) >= len(want)
	})
	if !slices.Equal(got, want) {
		t.Fatalf("statuses in the stream %v; want %v", got, want)
	}

	// A pod being deleted still stops cleanly and hands the lease over at once.
	stop()
	if code := <-exited; code != 0 {
		t.Fatalf("exit code %d after a clean stop; want 0", code)
	}
	if entry, err := leases.get(context.Background(), "lapse"); err != nil || (entry != nil && !entry.deleted) {
		t.Fatalf("lease key after a clean stop: %+v, %v; want it deleted", entry, err)
	}
}

// pairingEngine is an engine whose pairing is one key of the session's auth state in NATS: it asks
// for a QR while the key is missing, and is WORKING from the stored pairing when it is there.
type pairingEngine struct {
	host  *Host
	mu    sync.Mutex
	calls []string
}

func (e *pairingEngine) call(ctx context.Context, method string, _ any) (any, error) {
	e.mu.Lock()
	e.calls = append(e.calls, method)
	e.mu.Unlock()
	if method != "start" {
		return nil, nil
	}
	stored, err := e.host.AuthGet(ctx, "creds", []string{"me"})
	if err != nil {
		return nil, err
	}
	if _, paired := stored["me"]; paired {
		e.host.SetStatus("WORKING", "")
	} else {
		e.host.SetStatus("SCAN_QR_CODE", "")
	}
	return nil, nil
}

// pair is the phone's scan: the pairing stored, the session WORKING.
func (e *pairingEngine) pair(t *testing.T) {
	t.Helper()
	if err := e.host.AuthSet(context.Background(), map[string]map[string]json.RawMessage{"creds": {"me": json.RawMessage(`"15550001111"`)}}); err != nil {
		t.Fatal(err)
	}
	e.host.SetStatus("WORKING", "")
}

func (e *pairingEngine) lifecycle() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var starts []string
	for _, call := range e.calls {
		if call == "start" || call == "stop" {
			starts = append(starts, call)
		}
	}
	return starts
}

// storedStatuses: the session's statuses as the event stream holds them, in order.
func storedStatuses(t *testing.T, js jetstream.JetStream, session string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, eventsStream)
	if err != nil {
		return nil
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return nil
	}
	var statuses []string
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if err != nil || msg.Subject != "sb.evt."+session+".session.status" {
			continue
		}
		var envelope struct {
			Payload struct {
				Status string `json:"status"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(msg.Data, &envelope); err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, envelope.Payload.Status)
	}
	return statuses
}

func assertAlive(t *testing.T, exited <-chan int) {
	t.Helper()
	select {
	case code := <-exited:
		t.Fatalf("the pod ended (exit code %d); want it running", code)
	default:
	}
}

func freePort(t *testing.T) int {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = listener.Close() }()
	return listener.Addr().(*net.TCPAddr).Port
}

// tcpProxy stands between the pod and NATS (testkit's TcpProxy): cut drops every connection and
// refuses new ones until resume, the way a network failure cuts one client off.
type tcpProxy struct {
	target   string
	port     int
	mu       sync.Mutex
	listener net.Listener
	conns    []net.Conn
}

func startProxy(t *testing.T, natsURL string) *tcpProxy {
	p := &tcpProxy{target: strings.TrimPrefix(natsURL, "nats://"), port: freePort(t)}
	p.resume()
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) address() string { return fmt.Sprintf("127.0.0.1:%d", p.port) }

func (p *tcpProxy) resume() {
	listener, err := net.Listen("tcp", p.address())
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	p.listener = listener
	p.mu.Unlock()
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, upstream)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(upstream, client); _ = upstream.Close() }()
			go func() { _, _ = io.Copy(client, upstream); _ = client.Close() }()
		}
	}()
}

func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		_ = p.listener.Close()
		p.listener = nil
	}
	for _, conn := range p.conns {
		_ = conn.Close()
	}
	p.conns = nil
}

// The host starts no engine while the pod does not hold the session lease (a logout's restart that
// outlived it), and does once it holds it again.
func TestHostStartsNoEngineWithoutTheLease(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	held := false
	host.mayConnect = func() bool { return held }
	host.Start(context.Background())
	if status, _, _, _ := host.Status(); status != "STOPPED" || len(engine.calls) != 0 {
		t.Fatalf("without the lease: status %s, engine calls %v; want STOPPED and none", status, engine.calls)
	}
	held = true
	host.Start(context.Background())
	if status, _, _, _ := host.Status(); status != "STARTING" || !slices.Equal(engine.calls, []string{"start"}) {
		t.Fatalf("with the lease: status %s, engine calls %v; want STARTING after one start", status, engine.calls)
	}
}
