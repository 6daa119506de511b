package natshost

import (
	"context"
	"encoding/json"
	"testing"
)

// The chats' app state commands (archive, unread, delete, clear) the chat's picture and read receipts reach the engine methods
// engines/gows implements with the command's args, and reply as engine-pod's dispatch does.
func TestChatStateOps(t *testing.T) {
	var published [][]byte
	var gotMethod string
	var gotParams map[string]any
	engine := func(_ context.Context, method string, params json.RawMessage) (any, error) {
		gotMethod, gotParams = method, nil
		_ = json.Unmarshal(params, &gotParams)
		switch method {
		case "chatPicture":
			return map[string]any{"url": nil}, nil
		case "readChatMessages":
			return map[string]any{"ids": []string{}}, nil
		}
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
		reply  string
	}{
		{"chat.archive", map[string]any{"chatId": "15551230001@c.us", "archive": true}, "archiveChat", `{"archive":true,"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.archive", map[string]any{"chatId": "1@g.us", "archive": false}, "archiveChat", `{"archive":false,"chatId":"1@g.us"}`, `{"success":true}`},
		{"chat.unread", map[string]any{"chatId": "15551230001@c.us"}, "markChatUnread", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.delete", map[string]any{"chatId": "15551230001@c.us"}, "deleteChat", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.clearMessages", map[string]any{"chatId": "15551230001@c.us"}, "clearMessages", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.picture", map[string]any{"chatId": "1@g.us", "refresh": true}, "chatPicture", `{"chatId":"1@g.us","refresh":true}`, `{"url":null}`},
		{"chat.read", map[string]any{"chatId": "15551230001@c.us", "messages": 2, "days": 7}, "readChatMessages", `{"chatId":"15551230001@c.us","days":7,"messages":2}`, `{"ids":[]}`},
	} {
		result, err := c.execute(context.Background(), tc.op, tc.args)
		if err != nil {
			t.Errorf("%s: %v", tc.op, err)
			continue
		}
		params, _ := json.Marshal(gotParams)
		reply, _ := json.Marshal(result)
		if gotMethod != tc.method || string(params) != tc.params || string(reply) != tc.reply {
			t.Errorf("%s: called %s %s and replied %s; want %s %s and %s", tc.op, gotMethod, params, reply, tc.method, tc.params, tc.reply)
		}
	}
}
