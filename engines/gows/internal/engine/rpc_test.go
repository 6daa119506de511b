package engine

import (
	"github.com/switchboard/engines/gows/internal/hostapi"

	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestRPCBothDirections: a host request that needs an answer from the host (auth.get) is served
// while the reader keeps reading; errors carry the CommandError code.
func TestRPCBothDirections(t *testing.T) {
	hostIn, engineOut := io.Pipe()
	engineIn, hostOut := io.Pipe()
	var peer *Peer
	peer = NewPeer(engineOut, func(ctx context.Context, method string, params any) (any, error) {
		switch method {
		case "echoAuth":
			found := map[string]string{}
			if err := peer.Call(ctx, "auth.get", map[string]any{"type": "t", "ids": []string{"a"}}, &found); err != nil {
				return nil, err
			}
			return found["a"], nil
		case "fail":
			return nil, commandError(hostapi.WrongStatus, "not yet")
		}
		return nil, errUnknownMethod
	}, NewLogger(io.Discard, false))
	go func() { _ = peer.Serve(context.Background(), engineIn) }()

	lines := bufio.NewScanner(hostIn)
	send := func(s string) { _, _ = hostOut.Write([]byte(s + "\n")) }
	read := func() map[string]any {
		if !lines.Scan() {
			t.Fatal("no line from the engine")
		}
		var msg map[string]any
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("not JSON: %s", lines.Text())
		}
		return msg
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"echoAuth","params":{}}`)
	call := read()
	if call["method"] != "auth.get" {
		t.Fatalf("expected auth.get, got %v", call)
	}
	id, _ := json.Marshal(call["id"])
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"a":"value"}}`)
	if answer := read(); answer["result"] != "value" || answer["id"] != float64(1) {
		t.Fatalf("answer: %v", answer)
	}

	send(`{"jsonrpc":"2.0","id":2,"method":"fail"}`)
	failed := read()
	errObj := failed["error"].(map[string]any)
	if errObj["code"] != float64(-32000) || errObj["message"] != "not yet" || errObj["data"].(map[string]any)["code"] != "WRONG_STATUS" {
		t.Fatalf("error: %v", failed)
	}

	send(`{"jsonrpc":"2.0","id":3,"method":"nope"}`)
	if unknown := read(); unknown["error"].(map[string]any)["code"] != float64(-32601) {
		t.Fatalf("unknown method: %v", unknown)
	}
	if !strings.Contains(lines.Text(), `"jsonrpc":"2.0"`) {
		t.Fatal("no jsonrpc member")
	}
	_ = hostOut.Close()
}
