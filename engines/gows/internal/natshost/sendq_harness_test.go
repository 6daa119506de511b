package natshost

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A real nats-server with JetStream for the pod's tests (make test-services installs it), on a
// free port with its own storage, stopped when the test ends.
func startNATS(t *testing.T) string {
	t.Helper()
	binary := os.Getenv("NATS_SERVER_BIN") // as testkit's startNatsServer finds it
	if binary == "" {
		found, err := exec.LookPath("nats-server")
		if err != nil {
			found = "/usr/sbin/nats-server"
		}
		binary = found
	}
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("nats-server not found (make test-services installs it, or set NATS_SERVER_BIN): %v", err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := listener.Addr().(*net.TCPAddr).Port
	_ = listener.Close()
	server := exec.Command(binary, "-js", "-a", "127.0.0.1", "-p", fmt.Sprint(port), "-sd", t.TempDir())
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = server.Process.Kill()
		_ = server.Wait()
	})
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	eventually(t, "nats-server to accept connections", func() bool {
		nc, err := nats.Connect(url)
		if err != nil {
			return false
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		_, err = js.AccountInfo(context.Background())
		return err == nil
	})
	return url
}

// eventually waits for a condition the system under test brings about; the deadline only ends a
// test that hangs, it is not what the test checks.
func eventually(t *testing.T, what string, condition func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !condition() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeService is the engine as the messaging service would drive it: it records every method
// called, answers a sent text with its message record, and makes message ids on request.
type fakeService struct {
	mu    sync.Mutex
	calls []serviceCall
	ids   int
}

type serviceCall struct {
	method string
	params map[string]any
}

func (f *fakeService) engine(_ context.Context, method string, params any) (any, error) {
	encoded, _ := json.Marshal(params)
	var decoded map[string]any
	_ = json.Unmarshal(encoded, &decoded)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, serviceCall{method: method, params: decoded})
	switch method {
	case "newMessageId":
		f.ids++
		return fmt.Sprintf("MADE%04d", f.ids), nil
	case "sendText":
		return map[string]any{"id": fmt.Sprintf("true_%s_%s", decoded["chatId"], decoded["id"]), "body": decoded["text"], "fromMe": true, "hasMedia": false}, nil
	}
	return nil, nil
}

// sent: the ids of the texts sent, in order.
func (f *fakeService) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, call := range f.calls {
		if call.method == "sendText" {
			ids = append(ids, fmt.Sprint(call.params["id"]))
		}
	}
	return ids
}

func (f *fakeService) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var methods []string
	for _, call := range f.calls {
		methods = append(methods, call.method)
	}
	return methods
}

// recordingLog keeps the pod's log lines, so a test can wait for what the pod says it did.
type recordingLog struct {
	mu       sync.Mutex
	lines    []string
	messages []string
}

func (l *recordingLog) add(level, msg string, kv []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, level+" "+msg+" "+fmt.Sprint(kv...))
	l.messages = append(l.messages, msg)
}

// count is how many lines had exactly this message.
func (l *recordingLog) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.messages {
		if m == msg {
			n++
		}
	}
	return n
}
func (l *recordingLog) Info(msg string, kv ...any)  { l.add("info", msg, kv) }
func (l *recordingLog) Warn(msg string, kv ...any)  { l.add("warn", msg, kv) }
func (l *recordingLog) Error(msg string, kv ...any) { l.add("error", msg, kv) }
func (l *recordingLog) said(text string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, text) {
			return true
		}
	}
	return false
}

// runningPod is an engine pod of the session against the test's NATS, run as `switchboard-gows
// nats` runs it; the session stays STARTING until the test says it works.
type runningPod struct {
	pod     *Pod
	service *fakeService
	log     *recordingLog
	stop    context.CancelFunc
	ended   chan struct{}
}

func startPod(t *testing.T, url, session, name string) *runningPod {
	t.Helper()
	outbound, err := NewOutboundPolicy("", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Session: session, NatsServers: []string{url}, PodName: name, HealthPort: 0, BaseURL: "http://localhost:3000", Version: "0.0.0", Outbound: outbound, Settings: json.RawMessage("{}")}
	service := &fakeService{}
	log := &recordingLog{}
	pod := NewPod(cfg, service.engine, testChecks(t), testOperations(t), log)
	ctx, stop := context.WithCancel(context.Background())
	running := &runningPod{pod: pod, service: service, log: log, stop: stop, ended: make(chan struct{})}
	go func() {
		pod.Run(ctx)
		close(running.ended)
	}()
	t.Cleanup(func() { running.stopCleanly(t) })
	return running
}

// stopCleanly: SIGTERM's way (the lease handed over); idempotent.
func (p *runningPod) stopCleanly(t *testing.T) {
	t.Helper()
	p.stop()
	select {
	case <-p.ended:
	case <-time.After(30 * time.Second):
		t.Errorf("the pod did not stop")
	}
}

func (p *runningPod) waitReady(t *testing.T) {
	t.Helper()
	eventually(t, "the pod to hold the lease and run its engine", p.pod.Ready)
}

func (p *runningPod) working() { p.pod.Host.SetStatus("WORKING", "") }

// command sends a command on the session's channel as the gateway does and returns its reply.
func command(t *testing.T, nc *nats.Conn, session, op string, args any) commandReply {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"op": op, "args": args})
	msg, err := nc.Request("sb.cmd."+session, raw, 70*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	var reply commandReply
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		t.Fatalf("%s: reply %s: %v", op, msg.Data, err)
	}
	return reply
}

// result decodes a successful reply's result.
func result[T any](t *testing.T, reply commandReply) T {
	t.Helper()
	if !reply.OK {
		t.Fatalf("command refused: %+v", reply.Error)
	}
	encoded, _ := json.Marshal(reply.Result)
	var value T
	if err := json.Unmarshal(encoded, &value); err != nil {
		t.Fatalf("result %s: %v", encoded, err)
	}
	return value
}

func connectTest(t *testing.T, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// textSend is the args of host.sendQueue.submit for a text to a chat.
func textSend(chatID, id, text string, waitMs int) map[string]any {
	args := map[string]any{"chatId": chatID, "text": text, "linkPreview": false}
	if id != "" {
		args["id"] = id
	}
	return map[string]any{"route": "/api/sendText", "command": map[string]any{"op": "send.text", "args": args}, "waitMs": waitMs}
}
