package natshost

import "testing"

// The label commands reach the engine methods engines/gows implements with the params those
// read (each label id once), and reply as engine-pod's dispatch does.
func TestLabelOps(t *testing.T) {
	label := map[string]any{"id": "1", "name": "Lead", "color": 1, "colorHex": "#64c4ff"}
	answers := map[string]any{"labels": []any{label}, "createLabel": label, "updateLabel": label, "chatLabels": []any{label},
		"labelChats": []any{map[string]any{"id": "15551230001@c.us"}}}
	const labelJSON = `{"color":1,"colorHex":"#64c4ff","id":"1","name":"Lead"}`
	checkOpRoutes(t, answers, []opRoute{
		{"labels.list", nil, "labels", `null`, `[` + labelJSON + `]`},
		{"labels.create", map[string]any{"name": "Lead", "color": 1}, "createLabel", `{"color":1,"name":"Lead"}`, labelJSON},
		{"labels.update", map[string]any{"id": "1", "label": map[string]any{"name": "Lead", "color": 1}}, "updateLabel",
			`{"color":1,"id":"1","name":"Lead"}`, labelJSON},
		{"labels.delete", map[string]any{"id": "1"}, "deleteLabel", `{"id":"1"}`, `{"success":true}`},
		{"labels.ofChat", map[string]any{"chatId": "15551230001@c.us"}, "chatLabels", `{"chatId":"15551230001@c.us"}`, `[` + labelJSON + `]`},
		{"labels.setForChat", map[string]any{"chatId": "15551230001@c.us", "labels": []any{map[string]any{"id": "1"}, map[string]any{"id": "2"}, map[string]any{"id": "1"}}},
			"setChatLabels", `{"chatId":"15551230001@c.us","labelIds":["1","2"]}`, `{"success":true}`},
		{"labels.chats", map[string]any{"id": "1"}, "labelChats", `{"id":"1"}`, `[{"id":"15551230001@c.us"}]`},
	})
}
