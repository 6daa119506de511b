package natshost

import "testing"

// The status commands reach the engine's status methods with the params those read (a media
// status's file resolved), and reply as engine-pod's dispatch does.
func TestStoryOps(t *testing.T) {
	record := map[string]any{"id": "true_status@broadcast_ABC"}
	answers := map[string]any{"sendTextStatus": record, "sendMediaStatus": record}
	const png = "iVBORw0KGgo="
	checkOpRoutes(t, answers, []opRoute{
		{"status.text", map[string]any{"text": "Out", "font": 2, "contacts": []any{"15551230001@c.us"}}, "sendTextStatus",
			`{"contacts":["15551230001@c.us"],"font":2,"text":"Out"}`, `{"id":"true_status@broadcast_ABC"}`},
		{"status.media", map[string]any{"kind": "image", "file": map[string]any{"mimetype": "image/png", "data": png}}, "sendMediaStatus",
			`{"file":{"data":"` + png + `","mimetype":"image/png"},"kind":"image"}`, `{"id":"true_status@broadcast_ABC"}`},
		{"status.delete", map[string]any{"id": "ABCDEFGH"}, "deleteStatus", `{"id":"ABCDEFGH"}`, `{"success":true}`},
	})
}
