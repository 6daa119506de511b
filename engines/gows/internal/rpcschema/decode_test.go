package rpcschema_test

import (
	"errors"
	"testing"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// A field of the wrong JSON type is named, with what it must be in JSON's terms, not Go's; so is
// a required field left out.
func TestDecodeNamesTheFieldInJSONTerms(t *testing.T) {
	cases := map[string]string{
		`{"chatId":"1@c.us","typing":"yes"}`:                           "typing: must be true or false, not string",
		`{"chatId":7}`:                                                 "chatId: must be a string, not number",
		`{"id":"1@g.us","action":"add","participants":"2@c.us"}`:       "participants: must be an array, not string",
		`{"id":"1@g.us","action":"add","participants":[{"id":false}]}`: "participants.id: must be a string, not bool",
	}
	for raw, want := range cases {
		var typing rpcschema.ArgsChatTyping
		var participants rpcschema.ArgsGroupParticipants
		err := rpcschema.Decode([]byte(raw), &typing)
		if want[:5] == "parti" {
			err = rpcschema.Decode([]byte(raw), &participants)
		}
		var field *rpcschema.FieldError
		if !errors.As(err, &field) || err.Error() != want {
			t.Errorf("%s: %v; want %q", raw, err, want)
		}
	}
	var archive rpcschema.ArgsChatArchive
	if err := rpcschema.Decode([]byte(`{"chatId":"1@c.us"}`), &archive); err == nil || err.Error() != "archive: required" {
		t.Errorf("a required field left out: %v; want archive: required", err)
	}
	var participants rpcschema.ArgsGroupParticipants
	err := rpcschema.Decode([]byte(`{"id":"1@g.us","action":"add","participants":[{"id":"2@c.us"},{}]}`), &participants)
	if err == nil || err.Error() != "participants[1].id: required" {
		t.Errorf("a required field of an item left out: %v; want participants[1].id: required", err)
	}
	var typing rpcschema.ArgsChatTyping
	if err := rpcschema.Decode([]byte(`{"chatId":"1@c.us","typing":true}`), &typing); err != nil || !typing.Typing || typing.ChatID != "1@c.us" {
		t.Errorf("fitting JSON: %v, %+v", err, typing)
	}
}
