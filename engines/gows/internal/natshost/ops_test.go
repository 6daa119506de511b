package natshost

import (
	"context"
	"encoding/json"
	"testing"
)

// The profile, contacts and picture commands reach the engine methods engines/gows implements,
// with the params those read, and reply in the shape engine-pod's dispatch gives them.
func TestProfileContactsAndPictureOps(t *testing.T) {
	answers := map[string]any{"contactAbout": "At sea", "contactPicture": nil, "groupPicture": "https://pps.whatsapp.net/v/t61/1_2.jpg",
		"contact": map[string]any{"id": "15551230001@c.us"}}
	const png = "iVBORw0KGgo="
	checkOpRoutes(t, answers, []opRoute{
		{"profile.setName", map[string]any{"name": "Ada"}, "setProfileName", `{"name":"Ada"}`, `{"success":true}`},
		{"profile.setPicture", map[string]any{"file": map[string]any{"mimetype": "image/png", "data": png}}, "setProfilePicture",
			`{"file":{"data":"` + png + `","filename":null,"mimetype":"image/png"}}`, `{"success":true}`},
		{"profile.deletePicture", nil, "deleteProfilePicture", `null`, `{"success":true}`},
		{"contacts.list", nil, "contacts", `null`, `null`},
		{"contacts.get", map[string]any{"contactId": "15551230001@c.us"}, "contact", `{"id":"15551230001@c.us"}`, `{"id":"15551230001@c.us"}`},
		{"contacts.about", map[string]any{"contactId": "15551230001@c.us"}, "contactAbout", `{"id":"15551230001@c.us"}`, `{"about":"At sea"}`},
		{"contacts.picture", map[string]any{"contactId": "15551230001@c.us", "refresh": true}, "contactPicture", `{"id":"15551230001@c.us"}`,
			`{"profilePictureURL":null}`},
		{"contacts.block", map[string]any{"contactId": "15551230001@c.us"}, "setBlocked", `{"blocked":true,"id":"15551230001@c.us"}`, `{"success":true}`},
		{"contacts.unblock", map[string]any{"contactId": "15551230001@c.us"}, "setBlocked", `{"blocked":false,"id":"15551230001@c.us"}`, `{"success":true}`},
		{"contacts.update", map[string]any{"contactId": "15551230001@c.us", "firstName": "Bob", "lastName": ""}, "updateContact",
			`{"firstName":"Bob","id":"15551230001@c.us","lastName":""}`, `{"success":true}`},
		{"group.picture", map[string]any{"id": "1@g.us", "refresh": false}, "groupPicture", `{"id":"1@g.us","refresh":false}`,
			`{"url":"https://pps.whatsapp.net/v/t61/1_2.jpg"}`},
		{"group.setPicture", map[string]any{"id": "1@g.us", "file": map[string]any{"mimetype": "image/png", "data": png}}, "setGroupPicture",
			`{"file":{"data":"` + png + `","filename":null,"mimetype":"image/png"},"id":"1@g.us"}`, `{"success":true}`},
		{"group.deletePicture", map[string]any{"id": "1@g.us"}, "deleteGroupPicture", `{"id":"1@g.us"}`, `{"success":true}`},
	})
}

// opRoute is one command and what must come of it: the engine method called, its params and the reply, as JSON.
type opRoute struct {
	op     string
	args   map[string]any
	method string
	params string
	reply  string
}

// checkOpRoutes runs each command through a WORKING host whose engine answers answers[method],
// and checks the method it called, the params it sent and the reply the command gave.
func checkOpRoutes(t *testing.T, answers map[string]any, routes []opRoute) {
	t.Helper()
	var published [][]byte
	var gotMethod string
	var gotParams map[string]any
	engine := func(_ context.Context, method string, params json.RawMessage) (any, error) {
		gotMethod, gotParams = method, nil
		_ = json.Unmarshal(params, &gotParams)
		return answers[method], nil
	}
	host := testHost(t, engine, &published)
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	for _, tc := range routes {
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
