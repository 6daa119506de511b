package engine

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// AuthBackend is the host's auth-state store (hostapi.Host has it).
type AuthBackend interface {
	AuthGet(ctx context.Context, typ string, ids []string) (map[string]json.RawMessage, error)
	AuthSet(ctx context.Context, data map[string]map[string]json.RawMessage) error
	AuthClear(ctx context.Context) error
}

// indexType holds, per type, the list of its ids: the host's store gets by id and cannot list.
const indexType = "gows-index"

// KV is the one key-value layer every whatsmeow store sits on: a cache of everything in the
// process (loaded once at start), written through to the host on each change. Values are JSON
// (bytes as base64). An id set that changes rewrites that type's index entry too.
type KV struct {
	backend AuthBackend
	mu      sync.RWMutex
	data    map[string]map[string]json.RawMessage
}

// kvTypes are the types the engine keeps; Load reads each one's index.
var kvTypes = []string{
	"device", "identity", "session", "prekey", "senderkey", "appstatekey", "appstateversion", "appstatemac",
	"contact", "chatsettings", "msgsecret", "privacytoken", "lid", "eventbuffer", labelBookType,
}

func NewKV(backend AuthBackend) *KV {
	return &KV{backend: backend, data: map[string]map[string]json.RawMessage{}}
}

// Load reads everything the host keeps for this session into the cache.
func (kv *KV) Load(ctx context.Context) error {
	indexes, err := kv.backend.AuthGet(ctx, indexType, kvTypes)
	if err != nil {
		return err
	}
	data := map[string]map[string]json.RawMessage{}
	for _, typ := range kvTypes {
		data[typ] = map[string]json.RawMessage{}
		var ids []string
		if raw, ok := indexes[typ]; ok {
			if err := json.Unmarshal(raw, &ids); err != nil {
				return err
			}
		}
		if len(ids) == 0 {
			continue
		}
		values, err := kv.backend.AuthGet(ctx, typ, ids)
		if err != nil {
			return err
		}
		for id, value := range values {
			data[typ][id] = value
		}
	}
	kv.mu.Lock()
	kv.data = data
	kv.mu.Unlock()
	return nil
}

func (kv *KV) bucket(typ string) map[string]json.RawMessage {
	b := kv.data[typ]
	if b == nil {
		b = map[string]json.RawMessage{}
		kv.data[typ] = b
	}
	return b
}

// Get decodes one value into out; false when absent.
func (kv *KV) Get(typ, id string, out any) (bool, error) {
	kv.mu.RLock()
	raw, ok := kv.data[typ][id]
	kv.mu.RUnlock()
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(raw, out)
}

func (kv *KV) Has(typ, id string) bool {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	_, ok := kv.data[typ][id]
	return ok
}

// IDs lists a type's ids (sorted), those starting with prefix when it is not empty.
func (kv *KV) IDs(typ, prefix string) []string {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	var ids []string
	for id := range kv.data[typ] {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Put writes values (nil deletes) of one type, in one `auth.set`.
func (kv *KV) Put(ctx context.Context, typ string, values map[string]any) error {
	if len(values) == 0 {
		return nil
	}
	encoded := map[string]json.RawMessage{}
	for id, value := range values {
		if value == nil {
			continue
		}
		raw, err := json.Marshal(value)
		if err != nil {
			return err
		}
		encoded[id] = raw
	}
	kv.mu.Lock()
	b := kv.bucket(typ)
	idsChanged := false
	for id := range values {
		_, had := b[id]
		if raw, ok := encoded[id]; ok {
			b[id] = raw
			idsChanged = idsChanged || !had
		} else {
			delete(b, id)
			idsChanged = idsChanged || had
		}
	}
	write := map[string]map[string]json.RawMessage{typ: {}}
	for id := range values {
		// An id without an encoded value is removed: nil.
		write[typ][id] = encoded[id]
	}
	if idsChanged {
		ids := make([]string, 0, len(b))
		for id := range b {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		index, _ := json.Marshal(ids) // a list of strings always encodes
		write[indexType] = map[string]json.RawMessage{typ: index}
	}
	// The host applies one set at a time in order; holding the lock keeps index writes ordered.
	err := kv.backend.AuthSet(ctx, write)
	kv.mu.Unlock()
	return err
}

func (kv *KV) PutOne(ctx context.Context, typ, id string, value any) error {
	return kv.Put(ctx, typ, map[string]any{id: value})
}

func (kv *KV) Delete(ctx context.Context, typ string, ids ...string) error {
	values := map[string]any{}
	for _, id := range ids {
		values[id] = nil
	}
	return kv.Put(ctx, typ, values)
}

// Clear forgets everything, here and in the host (logout).
func (kv *KV) Clear(ctx context.Context) error {
	kv.mu.Lock()
	kv.data = map[string]map[string]json.RawMessage{}
	kv.mu.Unlock()
	return kv.backend.AuthClear(ctx)
}
