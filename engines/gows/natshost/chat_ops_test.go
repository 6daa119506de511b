package natshost

import (
	"context"
	"encoding/json"
	"testing"
)

// The chats' app state commands (archive, unread, delete, clear) reach the engine methods
// engines/gows implements with the command's args, and reply as engine-pod's dispatch does.
func TestChatStateOps(t *testing.T) {
	var published [][]byte
	var gotMethod string
	var gotParams map[string]any
	engine := func(_ context.Context, method string, params json.RawMessage) (any, error) {
		gotMethod, gotParams = method, nil
		_ = json.Unmarshal(params, &gotParams)
		return nil, nil
	}
	host := testHost(engine, &published)
	host.Start(context.Background())
	host.Notify("status", map[string]any{"status": "WORKING"})
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	for _, tc := range []struct {
		op     string
		args   map[string]any
		method string
		params string
	}{
		{"chat.archive", map[string]any{"chatId": "15551230001@c.us", "archive": true}, "archiveChat", `{"archive":true,"chatId":"15551230001@c.us"}`},
		{"chat.archive", map[string]any{"chatId": "1@g.us", "archive": false}, "archiveChat", `{"archive":false,"chatId":"1@g.us"}`},
		{"chat.unread", map[string]any{"chatId": "15551230001@c.us"}, "markChatUnread", `{"chatId":"15551230001@c.us"}`},
		{"chat.delete", map[string]any{"chatId": "15551230001@c.us"}, "deleteChat", `{"chatId":"15551230001@c.us"}`},
		{"chat.clearMessages", map[string]any{"chatId": "15551230001@c.us"}, "clearMessages", `{"chatId":"15551230001@c.us"}`},
	} {
		result, err := c.execute(context.Background(), tc.op, tc.args)
		if err != nil {
			t.Errorf("%s: %v", tc.op, err)
			continue
		}
		params, _ := json.Marshal(gotParams)
		reply, _ := json.Marshal(result)
		if gotMethod != tc.method || string(params) != tc.params || string(reply) != `{"success":true}` {
			t.Errorf("%s: called %s %s and replied %s; want %s %s and {\"success\":true}", tc.op, gotMethod, params, reply, tc.method, tc.params)
		}
	}
}
