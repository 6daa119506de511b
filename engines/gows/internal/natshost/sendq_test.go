package natshost

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Paced sending in the GOWS pod (issue 32), each rule against a real nats-server: the queue in
// KV bucket sb_send_queues as protocol/src/send-queue-records.ts lays it out, the pod driven by
// its command channel as the gateway drives it.

type queuedAnswer struct {
	Outcome string                       `json:"outcome"`
	Result  json.RawMessage              `json:"result"`
	Queued  rpcschema.QueuedSendAccepted `json:"queued"`
}

type queuePage = rpcschema.SendQueuePage

func ids(items []rpcschema.QueuedSend) []string {
	var out []string
	for _, item := range items {
		out = append(out, item.ID)
	}
	return out
}

func TestSendsGoInQueueOrderOnceTheSessionWorks(t *testing.T) {
	url := startNATS(t)
	nc, js := connectTest(t, url)
	pod := startPod(t, url, "order", "engine-order-0")
	pod.waitReady(t)
	order := []struct{ chat, id string }{{"1@c.us", "CHATA001"}, {"2@c.us", "CHATB001"}, {"1@c.us", "CHATA002"}, {"2@c.us", "CHATB002"}}
	for position, send := range order {
		answer := result[queuedAnswer](t, command(t, nc, "order", "host.sendQueue.submit", textSend(send.chat, send.id, "hello", 0)))
		if answer.Outcome != "queued" || answer.Queued.ID != send.id || answer.Queued.State != "queued" || answer.Queued.Position != position {
			t.Fatalf("submit %s: %+v, want queued at position %d", send.id, answer, position)
		}
	}
	page := result[queuePage](t, command(t, nc, "order", "host.sendQueue.list", map[string]any{"limit": 2, "offset": 1}))
	if page.Total != 4 || !reflect.DeepEqual(ids(page.Items), []string{"CHATB001", "CHATA002"}) {
		t.Fatalf("list limit 2 offset 1: %+v, want total 4, [B1 A2]", page)
	}
	if sent := pod.service.sent(); len(sent) != 0 {
		t.Fatalf("sent %v while the session was not working", sent)
	}
	pod.working()
	eventually(t, "the four sends to go out", func() bool { return len(pod.service.sent()) == 4 })
	if sent := pod.service.sent(); !reflect.DeepEqual(sent, []string{"CHATA001", "CHATB001", "CHATA002", "CHATB002"}) {
		t.Fatalf("sent %v, want the queue's order", sent)
	}
	bucket := &kv{nc: nc, js: js, bucket: sendQueuesBucket}
	eventually(t, "the queue keys to go", func() bool {
		keys, err := bucket.keys(context.Background(), "order.queue.*")
		return err == nil && len(keys) == 0
	})
	minutes, err := bucket.keys(context.Background(), "order.sent.*")
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, key := range minutes {
		entry, _ := bucket.get(context.Background(), key)
		var record sentMinute
		_ = json.Unmarshal(entry.value, &record)
		counted += len(record.Sends)
		if record.FencingToken == 0 {
			t.Errorf("%s has no fencing token", key)
		}
	}
	if counted != 4 {
		t.Fatalf("the sent records count %d sends, want 4", counted)
	}
	pairing, _ := bucket.get(context.Background(), "order.pairing")
	if pairing == nil {
		t.Fatal("the pairing date was not recorded when the session worked")
	}
}

func TestASendWithinItsWaitAnswersTheEnginesResultAfterTyping(t *testing.T) {
	url := startNATS(t)
	nc, _ := connectTest(t, url)
	pod := startPod(t, url, "wait", "engine-wait-0")
	pod.waitReady(t)
	pod.working()
	configure := command(t, nc, "wait", "host.sendQueue.setConfig", map[string]any{"sending": map[string]any{"typing": map[string]any{"msPerChar": 0, "minMs": 0, "maxMs": 0}, "maxQueued": 10}})
	if !configure.OK {
		t.Fatalf("setConfig: %+v", configure.Error)
	}
	answer := result[queuedAnswer](t, command(t, nc, "wait", "host.sendQueue.submit", textSend("1@c.us", "", "hi", 60_000)))
	var record map[string]any
	_ = json.Unmarshal(answer.Result, &record)
	if answer.Outcome != "sent" || record["id"] != "true_1@c.us_MADE0001" {
		t.Fatalf("submit: %+v, want sent with the message made with a new id", answer)
	}
	var sequence []string
	for _, method := range pod.service.methods() {
		if method != "start" {
			sequence = append(sequence, method)
		}
	}
	if want := []string{"newMessageId", "setTyping", "setTyping", "sendText"}; !reflect.DeepEqual(sequence, want) {
		t.Fatalf("the engine was asked %v, want %v", sequence, want)
	}
	typing := pod.service.calls[2].params
	if typing["chatId"] != "1@c.us" || typing["typing"] != true {
		t.Fatalf("typing before the text: %v", typing)
	}
}

func TestACancelledSendDoesNotGoAndItsWaiterHearsSo(t *testing.T) {
	url := startNATS(t)
	nc, _ := connectTest(t, url)
	pod := startPod(t, url, "cancel", "engine-cancel-0")
	pod.waitReady(t)
	_ = result[queuedAnswer](t, command(t, nc, "cancel", "host.sendQueue.submit", textSend("1@c.us", "KEEP0001", "a", 0)))
	waiting := make(chan commandReply, 1)
	go func() {
		waiting <- command(t, nc, "cancel", "host.sendQueue.submit", textSend("1@c.us", "DROP0001", "b", 60_000))
	}()
	eventually(t, "the second send to be queued", func() bool {
		return result[queuePage](t, command(t, nc, "cancel", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0})).Total == 2
	})
	if got := result[map[string]bool](t, command(t, nc, "cancel", "host.sendQueue.cancel", map[string]any{"id": "DROP0001"})); !got["cancelled"] {
		t.Fatalf("cancel: %v, want cancelled", got)
	}
	reply := <-waiting
	if reply.OK || reply.Error.Code != hostapi.Conflict {
		t.Fatalf("the waiting submit of the cancelled send: %+v, want CONFLICT", reply)
	}
	if got := result[map[string]bool](t, command(t, nc, "cancel", "host.sendQueue.cancel", map[string]any{"id": "DROP0001"})); got["cancelled"] {
		t.Fatal("a send cancelled already was cancelled again")
	}
	again := command(t, nc, "cancel", "host.sendQueue.submit", textSend("1@c.us", "KEEP0001", "a", 0))
	if again.OK || again.Error.Code != hostapi.Conflict {
		t.Fatalf("a second send with a queued send's id: %+v, want CONFLICT", again)
	}
	pod.working()
	eventually(t, "the kept send to go out", func() bool { return len(pod.service.sent()) == 1 })
	eventually(t, "the queue to empty", func() bool {
		return result[queuePage](t, command(t, nc, "cancel", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0})).Total == 0
	})
	if sent := pod.service.sent(); !reflect.DeepEqual(sent, []string{"KEEP0001"}) {
		t.Fatalf("sent %v, want only KEEP", sent)
	}
}

func TestAFullQueueAnswersQueueFullWithWhenToRetry(t *testing.T) {
	url := startNATS(t)
	nc, _ := connectTest(t, url)
	pod := startPod(t, url, "full", "engine-full-0")
	pod.waitReady(t)
	if reply := command(t, nc, "full", "host.sendQueue.setConfig", map[string]any{"sending": map[string]any{"maxQueued": 2, "perMinute": 1}}); !reply.OK {
		t.Fatalf("setConfig: %+v", reply.Error)
	}
	for _, id := range []string{"FULL0001", "FULL0002"} {
		_ = result[queuedAnswer](t, command(t, nc, "full", "host.sendQueue.submit", textSend("1@c.us", id, "x", 0)))
	}
	reply := command(t, nc, "full", "host.sendQueue.submit", textSend("1@c.us", "FULL0003", "x", 0))
	if reply.OK || reply.Error.Code != hostapi.QueueFull {
		t.Fatalf("the third send: %+v, want QUEUE_FULL", reply)
	}
	details := reply.Error.Details
	if details["limit"] != float64(2) || details["session"] != "full" {
		t.Fatalf("QUEUE_FULL details %v, want the session and its limit 2", details)
	}
	if seconds, ok := details["retryAfterSeconds"].(float64); !ok || seconds < 1 {
		t.Fatalf("retryAfterSeconds %v, want whole seconds, at least 1", details["retryAfterSeconds"])
	}
	if reply := command(t, nc, "full", "host.sendQueue.setConfig", map[string]any{"sending": map[string]any{"maxQueued": 0}}); reply.OK || reply.Error.Details["issues"] == nil {
		t.Fatalf("setConfig with maxQueued 0: %+v, want INVALID naming the field", reply)
	}
}

// A send a crash left `sending` is looked up in the history: one the server acknowledged is
// counted, not sent again; one not there, or told but not acknowledged, goes once, with its id.
func TestRecoveryAfterARestartSendsEachMessageOnce(t *testing.T) {
	url := startNATS(t)
	nc, js := connectTest(t, url)
	first := startPod(t, url, "crash", "engine-crash-0")
	first.waitReady(t)
	for _, id := range []string{"WENT0001", "LOST0001", "PEND0001", "WAITS001"} {
		_ = result[queuedAnswer](t, command(t, nc, "crash", "host.sendQueue.submit", textSend("1@c.us", id, "x", 0)))
	}
	first.stopCleanly(t)
	// As a crash leaves them: WENT, LOST and PEND handed to the engine; WENT in the history as the
	// server acknowledged it, PEND as the engine told it before it was on the wire (ack PENDING).
	bucket := &kv{nc: nc, js: js, bucket: sendQueuesBucket}
	store := newSendQueueStore(bucket, "crash", func() uint64 { return 1 })
	ctx := context.Background()
	if err := store.load(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"WENT0001", "LOST0001", "PEND0001"} {
		if err := store.setState(ctx, id, stateSending); err != nil {
			t.Fatal(err)
		}
	}
	messages := &kv{nc: nc, js: js, bucket: messagesBucket}
	recorder := newHistory(messages, "crash", nopLog{})
	if err := recorder.put(ctx, "1@c.us", "WENT0001", map[string]any{"id": "true_1@c.us_WENT", "fromMe": true, "ack": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := recorder.put(ctx, "1@c.us", "PEND0001", map[string]any{"id": "true_1@c.us_PEND", "fromMe": true, "ack": 0}, nil); err != nil {
		t.Fatal(err)
	}
	second := startPod(t, url, "crash", "engine-crash-1")
	second.waitReady(t)
	second.working()
	eventually(t, "the queue to empty", func() bool {
		return result[queuePage](t, command(t, nc, "crash", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0})).Total == 0
	})
	sent := append(first.service.sent(), second.service.sent()...)
	slices.Sort(sent)
	if !reflect.DeepEqual(sent, []string{"LOST0001", "PEND0001", "WAITS001"}) {
		t.Fatalf("sent %v over both pods, want LOST, PEND and WAITS once each (WENT was in the history, acknowledged)", sent)
	}
	reloaded := newSendQueueStore(bucket, "crash", func() uint64 { return 1 })
	if err := reloaded.load(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := len(reloaded.recentSends(time.Now().Add(-day))); got != 4 {
		t.Fatalf("%d sends counted in the pacing windows, want 4 (WENT, found in the history, too)", got)
	}
}

// The queue is the lease holder's: a pod waiting for the lease sends nothing of it.
func TestNothingIsSentWithoutTheLease(t *testing.T) {
	url := startNATS(t)
	nc, js := connectTest(t, url)
	ctx := context.Background()
	leases, err := openKV(ctx, nc, js, leaseBucket, leaseTTL, false)
	if err != nil {
		t.Fatal(err)
	}
	queues, err := openKV(ctx, nc, js, sendQueuesBucket, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	held, err := leases.create(ctx, "gated", []byte(`{"holder":"engine-gated-other","acquiredAt":"","renewedAt":""}`))
	if err != nil {
		t.Fatal(err)
	}
	store := newSendQueueStore(queues, "gated", func() uint64 { return held })
	command, _ := json.Marshal(map[string]any{"chatId": "1@c.us", "text": "x", "id": "GATED001", "linkPreview": false})
	if _, added, err := store.add(ctx, sendRecord{ID: "GATED001", Session: "gated", ChatID: "1@c.us", Route: "/api/sendText", QueuedAt: 1, Command: queuedAction{Op: "send.text", Args: command}}); err != nil || !added {
		t.Fatalf("queueing as the other holder: %v", err)
	}
	pod := startPod(t, url, "gated", "engine-gated-0")
	eventually(t, "the pod to wait for the lease", func() bool { return pod.log.said("session lease held by another pod; waiting") })
	pod.working()
	if sent := pod.service.sent(); len(sent) != 0 || pod.pod.Ready() {
		t.Fatalf("a pod without the lease sent %v (ready %v)", sent, pod.pod.Ready())
	}
	if err := leases.remove(ctx, "gated", held); err != nil {
		t.Fatal(err)
	}
	pod.waitReady(t)
	pod.working()
	eventually(t, "the holder to send the queued send", func() bool { return len(pod.service.sent()) == 1 })
}

// A paced send is refused at once for what its unpaced call would be refused: args that are not
// its op's, an op that is not a send, an op GOWS does not serve. Nothing is queued.
func TestAPacedSendIsCheckedAsItsOpBeforeItIsQueued(t *testing.T) {
	url := startNATS(t)
	nc, _ := connectTest(t, url)
	pod := startPod(t, url, "checked", "engine-checked-0")
	pod.waitReady(t)
	for _, c := range []struct {
		what string
		args map[string]any
		code string
		path string
	}{
		{"an empty text", textSend("1@c.us", "", "", 0), "INVALID", "args.command.args.text"},
		{"a chat id of no form", textSend("nobody", "", "x", 0), "INVALID", "args.command.args.chatId"},
		{"an op that is not a send", map[string]any{"route": "/api/sendSeen", "command": map[string]any{"op": "chat.seen", "args": map[string]any{"chatId": "1@c.us"}}, "waitMs": 0}, "INVALID", "args.command.op"},
		{"a send GOWS does not do", map[string]any{"route": "/api/sendList", "command": map[string]any{"op": "send.list", "args": map[string]any{"chatId": "1@c.us",
			"message": map[string]any{"title": "t", "button": "b", "sections": []any{map[string]any{"title": "s", "rows": []any{map[string]any{"title": "r", "rowId": "1"}}}}}}}, "waitMs": 0}, "NOT_SUPPORTED", ""},
	} {
		reply := command(t, nc, "checked", "host.sendQueue.submit", c.args)
		if reply.OK || string(reply.Error.Code) != c.code {
			t.Errorf("%s: %+v, want %s", c.what, reply, c.code)
			continue
		}
		if c.path != "" {
			issues, _ := reply.Error.Details["issues"].([]any)
			if len(issues) == 0 || issues[0].(map[string]any)["path"] != c.path {
				t.Errorf("%s: issues %v, want the first at %s", c.what, issues, c.path)
			}
		}
	}
	if page := result[queuePage](t, command(t, nc, "checked", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0})); page.Total != 0 {
		t.Fatalf("refused sends were queued: %+v", page)
	}
}

// Every write is a compare-and-set on the revision this pod read: when another holder of the
// lease wrote a queued send, this pod's lane stops instead of sending it too.
func TestAnotherHoldersWriteStopsTheLane(t *testing.T) {
	url := startNATS(t)
	nc, js := connectTest(t, url)
	pod := startPod(t, url, "fenced", "engine-fenced-0")
	pod.waitReady(t)
	_ = result[queuedAnswer](t, command(t, nc, "fenced", "host.sendQueue.submit", textSend("1@c.us", "FENCED01", "x", 0)))
	eventually(t, "the lane to find the session not working", func() bool { return pod.log.said("a queued send waits: the session cannot send now") })
	bucket := &kv{nc: nc, js: js, bucket: sendQueuesBucket}
	key := "fenced.queue." + authKeyToken("FENCED01")
	entry, err := bucket.get(context.Background(), key)
	if err != nil || entry == nil {
		t.Fatalf("the queued send's key: %v", err)
	}
	var record map[string]any
	_ = json.Unmarshal(entry.value, &record)
	record["fencingToken"] = 1_000_000
	raw, _ := json.Marshal(record)
	if _, err := bucket.update(context.Background(), key, raw, entry.revision); err != nil {
		t.Fatal(err)
	}
	pod.working()
	eventually(t, "the lane to stop", func() bool { return pod.log.said("the send queue stops: another holder of the session lease wrote it") })
	if sent := pod.service.sent(); len(sent) != 0 {
		t.Fatalf("a fenced-off pod sent %v", sent)
	}
}

func TestTheSendingConfigAtStartIsChecked(t *testing.T) {
	env := func(sending string) func(string) string {
		return func(name string) string {
			return map[string]string{"SWITCHBOARD_SESSION": "s1", "SWITCHBOARD_NATS_URL": "nats://n:4222", "SWITCHBOARD_SENDING": sending}[name]
		}
	}
	cfg, err := ReadConfig(env(`{"perMinute":20,"typing":{"msPerChar":40},"warmup":{"start":10,"step":5,"max":30},"maxQueued":50}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Sending; s == nil || s.PerMinute != 20 || s.MaxQueued != 50 || s.Typing.PerChar != 40*time.Millisecond || s.Typing.Min != time.Second || s.Warmup.Max != 30 {
		t.Fatalf("SWITCHBOARD_SENDING read as %+v", cfg.Sending)
	}
	if cfg, err := ReadConfig(env("")); err != nil || cfg.Sending != nil {
		t.Fatalf("no SWITCHBOARD_SENDING: %+v, %v; want off", cfg.Sending, err)
	}
	for sending, want := range map[string]string{
		`{"perMinute":0}`:                          "sending.perMinute: must be a whole number from 1 to 600, got 0",
		`{"delay":{"minMs":500,"maxMs":100}}`:      "sending.delay.maxMs: must be a whole number from 500 to 3600000, got 100",
		`{"perHour":5}`:                            `unknown field "perHour"`,
		`{"warmup":{"start":10,"step":1,"max":5}}`: "sending.warmup.max: must be a whole number from 10 to 100000, got 5",
	} {
		if _, err := ReadConfig(env(sending)); err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_SENDING") || !strings.Contains(err.Error(), want) {
			t.Errorf("SWITCHBOARD_SENDING=%s: %v, want %q", sending, err, want)
		}
	}
}

// One format: the replies and the KV records of this pod match protocol's schemas, which the Node
// engine pod's are parsed with.
func TestRepliesAndRecordsMatchTheProtocol(t *testing.T) {
	url := startNATS(t)
	nc, js := connectTest(t, url)
	pod := startPod(t, url, "schema", "engine-schema-0")
	pod.waitReady(t)
	if reply := command(t, nc, "schema", "host.sendQueue.setConfig", map[string]any{"sending": map[string]any{"maxQueued": 2}}); !reply.OK {
		t.Fatalf("setConfig: %+v", reply.Error)
	}
	queued := command(t, nc, "schema", "host.sendQueue.submit", textSend("1@c.us", "SCHEMA01", "x", 0))
	validate(t, schemaOf(t, "SendQueueSubmitResult"), queued.Result)
	_ = command(t, nc, "schema", "host.sendQueue.submit", textSend("1@c.us", "SCHEMA02", "x", 0))
	full := command(t, nc, "schema", "host.sendQueue.submit", textSend("1@c.us", "SCHEMA03", "x", 0))
	if full.OK {
		t.Fatal("a third send to a queue of 2 was taken")
	}
	validate(t, schemaOf(t, "QueueFullDetails"), full.Error.Details)
	validate(t, schemaOf(t, "SendQueuePage"), command(t, nc, "schema", "host.sendQueue.list", map[string]any{"limit": 10, "offset": 0}).Result)
	bucket := &kv{nc: nc, js: js, bucket: sendQueuesBucket}
	ctx := context.Background()
	record := schemaOf(t, "SendQueueRecord")
	for _, id := range []string{"SCHEMA01", "SCHEMA02"} {
		entry, err := bucket.get(ctx, "schema.queue."+authKeyToken(id))
		if err != nil || entry == nil {
			t.Fatalf("the record of %s: %v", id, err)
		}
		var value any
		_ = json.Unmarshal(entry.value, &value)
		validate(t, record, value)
	}
	validate(t, schemaOf(t, "SendQueueCancelResult"), command(t, nc, "schema", "host.sendQueue.cancel", map[string]any{"id": "SCHEMA02"}).Result)
	pod.working()
	eventually(t, "the send to go out", func() bool { return len(pod.service.sent()) == 1 })
	sent := command(t, nc, "schema", "host.sendQueue.submit", textSend("1@c.us", "", "y", 60_000))
	validate(t, schemaOf(t, "SendQueueSubmitResult"), sent.Result)
	for key, name := range map[string]string{"schema.pairing": "SendPairingRecord", "schema.sent.*": "SentMinuteRecord"} {
		keys := []string{key}
		if strings.HasSuffix(key, "*") {
			keys, _ = bucket.keys(ctx, key)
		}
		if len(keys) == 0 {
			t.Fatalf("no %s", key)
		}
		for _, key := range keys {
			entry, _ := bucket.get(ctx, key)
			if entry == nil {
				t.Fatalf("no %s", key)
			}
			var value any
			_ = json.Unmarshal(entry.value, &value)
			validate(t, schemaOf(t, name), value)
		}
	}
}
