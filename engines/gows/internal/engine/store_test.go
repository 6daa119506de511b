package engine

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"go.mau.fi/whatsmeow/types"
)

// memoryAuth is the host's auth-state store as a map, the way FileAuthStateStore behaves.
type memoryAuth struct {
	data map[string]map[string]json.RawMessage
}

func (m *memoryAuth) AuthGet(_ context.Context, typ string, ids []string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, id := range ids {
		if v, ok := m.data[typ][id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

func (m *memoryAuth) AuthSet(_ context.Context, data map[string]map[string]json.RawMessage) error {
	for typ, values := range data {
		if m.data[typ] == nil {
			m.data[typ] = map[string]json.RawMessage{}
		}
		for id, v := range values {
			if v == nil || string(v) == "null" {
				delete(m.data[typ], id)
				continue
			}
			m.data[typ][id] = v
		}
	}
	return nil
}

func (m *memoryAuth) AuthClear(context.Context) error {
	m.data = map[string]map[string]json.RawMessage{}
	return nil
}

func TestStoreResumesFromTheHostsAuthState(t *testing.T) {
	ctx := context.Background()
	backend := &memoryAuth{data: map[string]map[string]json.RawMessage{}}
	log := NewLogger(io.Discard, false)
	first := NewStore(NewKV(backend), log)
	device, err := first.Device()
	if err != nil {
		t.Fatal(err)
	}
	jid := types.NewADJID("15550001111", 0, 7)
	device.ID = &jid
	device.PushName = "Ada"
	if err := device.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.PutSession(ctx, "15551230001:0", []byte("session")); err != nil {
		t.Fatal(err)
	}
	if err := first.PutIdentity(ctx, "15551230001:0", [32]byte{1}); err != nil {
		t.Fatal(err)
	}
	preKeys, err := first.GetOrGenPreKeys(ctx, 3)
	if err != nil || len(preKeys) != 3 {
		t.Fatalf("pre-keys: %v %d", err, len(preKeys))
	}
	if err := first.MarkPreKeysAsUploaded(ctx, preKeys[2].KeyID); err != nil {
		t.Fatal(err)
	}
	lid := types.NewJID("245120000000001", types.HiddenUserServer)
	if err := first.PutLIDMapping(ctx, lid, types.NewJID("15551230001", types.DefaultUserServer)); err != nil {
		t.Fatal(err)
	}

	// A new process: everything comes back from the host.
	kv := NewKV(backend)
	if err := kv.Load(ctx); err != nil {
		t.Fatal(err)
	}
	second := NewStore(kv, log)
	again, err := second.Device()
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == nil || *again.ID != jid || again.PushName != "Ada" || *again.NoiseKey.Pub != *device.NoiseKey.Pub || again.RegistrationID != device.RegistrationID {
		t.Fatalf("device not resumed: %+v", again)
	}
	if *again.SignedPreKey.Signature != *device.SignedPreKey.Signature {
		t.Fatal("signed pre-key signature lost")
	}
	if session, _ := second.GetSession(ctx, "15551230001:0"); string(session) != "session" {
		t.Fatalf("session: %q", session)
	}
	if trusted, _ := second.IsTrustedIdentity(ctx, "15551230001:0", [32]byte{2}); trusted {
		t.Fatal("a changed identity is trusted")
	}
	if count, _ := second.UploadedPreKeyCount(ctx); count != 3 {
		t.Fatalf("uploaded pre-keys: %d", count)
	}
	if pn, _ := second.GetPNForLID(ctx, lid); pn.User != "15551230001" {
		t.Fatalf("lid map: %v", pn)
	}

	// PN sessions move to the LID.
	if err := second.MigratePNToLID(ctx, types.NewJID("15551230001", types.DefaultUserServer), lid); err != nil {
		t.Fatal(err)
	}
	if has, _ := second.HasSession(ctx, "245120000000001_1:0"); !has {
		t.Fatalf("session not migrated: %v", kv.IDs("session", ""))
	}

	// Logout purges everything.
	if err := again.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	third := NewKV(backend)
	if err := third.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if fresh, _ := NewStore(third, log).Device(); fresh.ID != nil {
		t.Fatal("device survived logout")
	}
}
