package natshost

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// The profile, contacts and picture commands reach the engine methods engines/gows implements,
// with the params those read (their rpcschema types: setProfilePicture's is the file itself, as
// the TypeScript proxy sends it), and reply in the shape engine-pod's dispatch gives them.
func TestProfileContactsAndPictureOps(t *testing.T) {
	answers := map[string]any{"contactAbout": "At sea", "contactPicture": nil, "groupPicture": "https://pps.whatsapp.net/v/t61/1_2.jpg",
		"contact": map[string]any{"id": "15551230001@c.us"}}
	const png = "iVBORw0KGgo="
	checkOpRoutes(t, answers, []opRoute{
		{"profile.setName", map[string]any{"name": "Ada"}, "setProfileName", `{"name":"Ada"}`, `{"success":true}`},
		{"profile.setPicture", map[string]any{"file": map[string]any{"mimetype": "image/png", "data": png}}, "setProfilePicture",
			`{"data":"` + png + `","mimetype":"image/png"}`, `{"success":true}`},
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
			`{"file":{"data":"` + png + `","mimetype":"image/png"},"id":"1@g.us"}`, `{"success":true}`},
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
	var gotParams any
	engine := func(_ context.Context, method string, params any) (any, error) {
		gotMethod, gotParams = method, nil
		encoded, _ := json.Marshal(params)
		_ = json.Unmarshal(encoded, &gotParams)
		return answers[method], nil
	}
	host := testHost(t, engine, &published)
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	for _, tc := range routes {
		result, err := c.execute(context.Background(), tc.op, rawArgs(tc.args))
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

// rawArgs: a command's args as they come on NATS.
func rawArgs(args map[string]any) json.RawMessage {
	if args == nil {
		return nil
	}
	raw, _ := json.Marshal(args)
	return raw
}

// The other ops whose params are not their args: each reaches its method with the params of the
// method's rpcschema type (a channel by its ref, member ids, vCards built from the cards).
func TestAdaptedOpsSendTheirMethodsParams(t *testing.T) {
	const png = "iVBORw0KGgo="
	checkOpRoutes(t, map[string]any{}, []opRoute{
		{"channels.get", map[string]any{"channel": map[string]any{"by": "invite", "key": "AbC"}}, "channel", `{"by":"invite","key":"AbC"}`, `null`},
		{"channels.create", map[string]any{"name": "News", "picture": map[string]any{"mimetype": "image/png", "data": png}}, "createChannel",
			`{"name":"News","picture":{"data":"` + png + `","mimetype":"image/png"}}`, `null`},
		{"channels.create", map[string]any{"name": "News"}, "createChannel", `{"name":"News"}`, `null`},
		{"group.participants", map[string]any{"id": "1@g.us", "action": "add", "participants": []any{map[string]any{"id": "2@c.us"}, map[string]any{"id": "3@c.us"}}},
			"updateGroupParticipants", `{"action":"add","id":"1@g.us","participants":["2@c.us","3@c.us"]}`, `null`},
		{"send.contactVcard", map[string]any{"chatId": "1@c.us", "contacts": []any{map[string]any{"fullName": "Ada; L", "phoneNumber": "+1 555", "organization": "AE"}}},
			"sendContactVcard", `{"chatId":"1@c.us","vcards":["BEGIN:VCARD\nVERSION:3.0\nFN:Ada\\; L\nORG:AE;\nTEL;type=CELL;type=VOICE;waid=1555:+1 555\nEND:VCARD"]}`, `null`},
		{"group.list", nil, "groups", `{"refresh":false}`, `null`},
		{"group.refresh", nil, "groups", `{"refresh":true}`, `{"success":true}`},
		{"account.checkNumber", map[string]any{"phone": "15551230001"}, "checkNumber", `{"phone":"15551230001"}`, `null`},
		{"labels.setForChat", map[string]any{"chatId": "1@c.us", "labels": []any{map[string]any{"id": "1"}, map[string]any{"id": "1"}, map[string]any{"id": "2"}}},
			"setChatLabels", `{"chatId":"1@c.us","labelIds":["1","2"]}`, `{"success":true}`},
	})
}

// Args whose JSON does not fit their schema's type are INVALID naming the field, and reach no method.
func TestArgsOfTheWrongTypeAreRefusedNamingTheField(t *testing.T) {
	var published [][]byte
	engine := &fakeEngine{}
	host := testHost(t, engine.call, &published)
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	_, err := c.execute(context.Background(), "group.participants", rawArgs(map[string]any{"id": "1@g.us", "action": "add", "participants": "2@c.us"}))
	refusal, ok := err.(*CommandError)
	if !ok || refusal.Code != "INVALID" || refusal.Message != "invalid command: args.participants: must be an array, not string" {
		t.Errorf("participants not an array: %v", err)
	}
	if slices.Contains(engine.calls, "updateGroupParticipants") {
		t.Errorf("the engine was called with args that do not fit: %v", engine.calls)
	}
}
