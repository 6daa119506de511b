package natshost

import (
	"reflect"
	"testing"
)

func TestDeletedChats(t *testing.T) {
	payload := map[string]any{"event": "chats.delete", "data": map[string]any{"items": []any{
		"15551234567@s.whatsapp.net", "245120000000012@lid", "120363000000000001@g.us", "15551234567:3@s.whatsapp.net", "status@broadcast", 7,
	}}}
	want := []string{"15551234567@c.us", "245120000000012@lid", "120363000000000001@g.us", "15551234567@c.us"}
	if got := deletedChats(payload); !reflect.DeepEqual(got, want) {
		t.Fatalf("deletedChats = %v, want %v", got, want)
	}
	if got := deletedChats(map[string]any{"event": "chats.update", "data": payload["data"]}); got != nil {
		t.Fatalf("another engine event: %v, want none", got)
	}
}

func TestHistoryRecords(t *testing.T) {
	record := map[string]any{"id": "false_15551234567@c.us_ABC", "body": "before pairing"}
	payload := map[string]any{"event": "messaging-history.set", "data": map[string]any{"messages": []any{record, map[string]any{"body": "no id"}, "x"}}}
	if got := historyRecords(payload); !reflect.DeepEqual(got, []map[string]any{record}) {
		t.Fatalf("historyRecords = %v, want the one record", got)
	}
	if got := historyRecords(map[string]any{"event": "chats.delete", "data": payload["data"]}); got != nil {
		t.Fatalf("another engine event: %v, want none", got)
	}
}
