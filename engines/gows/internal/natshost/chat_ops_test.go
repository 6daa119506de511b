package natshost

import "testing"

// The chats' app state commands (archive, unread, delete, clear) the chat's picture and read receipts reach the engine methods
// engines/gows implements with the command's args, and reply as engine-pod's dispatch does.
func TestChatStateOps(t *testing.T) {
	answers := map[string]any{"chatPicture": map[string]any{"url": nil}, "readChatMessages": map[string]any{"ids": []string{}}}
	checkOpRoutes(t, answers, []opRoute{
		{"chat.archive", map[string]any{"chatId": "15551230001@c.us", "archive": true}, "archiveChat", `{"archive":true,"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.archive", map[string]any{"chatId": "1@g.us", "archive": false}, "archiveChat", `{"archive":false,"chatId":"1@g.us"}`, `{"success":true}`},
		{"chat.unread", map[string]any{"chatId": "15551230001@c.us"}, "markChatUnread", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.delete", map[string]any{"chatId": "15551230001@c.us"}, "deleteChat", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.clearMessages", map[string]any{"chatId": "15551230001@c.us"}, "clearMessages", `{"chatId":"15551230001@c.us"}`, `{"success":true}`},
		{"chat.picture", map[string]any{"chatId": "1@g.us", "refresh": true}, "chatPicture", `{"chatId":"1@g.us","refresh":true}`, `{"url":null}`},
		{"chat.read", map[string]any{"chatId": "15551230001@c.us", "messages": 2, "days": 7}, "readChatMessages", `{"chatId":"15551230001@c.us","days":7,"messages":2}`, `{"ids":[]}`},
	})
}
