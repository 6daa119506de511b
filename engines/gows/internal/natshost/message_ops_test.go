package natshost

import "testing"

// message.pin reaches the engine's pinMessage with the command's args (a null duration unpins)
// and replies as engine-pod's dispatch acknowledges it.
func TestMessagePinOp(t *testing.T) {
	const id = "false_15551230001@c.us_ABCDEF0123456789"
	checkOpRoutes(t, nil, []opRoute{
		{"message.pin", map[string]any{"chatId": "15551230001@c.us", "messageId": id, "duration": 86400}, "pinMessage",
			`{"chatId":"15551230001@c.us","duration":86400,"messageId":"` + id + `"}`, `{"success":true}`},
		{"message.pin", map[string]any{"chatId": "15551230001@c.us", "messageId": id, "duration": nil}, "pinMessage",
			`{"chatId":"15551230001@c.us","duration":null,"messageId":"` + id + `"}`, `{"success":true}`},
	})
}
