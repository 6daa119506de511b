package natshost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sync"
)

// authState is the session's auth state in KV bucket `sb_auth`, key `<session>.<type>.<id>` with
// type and id as base64url tokens (`=` for the empty string) and the value the JSON the engine
// stored: the keys and values engine-pod/src/cluster/nats-auth-state-store.ts writes, so a pod
// switched between the Node engine pod and this one resumes without a new QR code.
type authState struct {
	kv      *kv
	session string
}

func authKeyToken(value string) string {
	if value == "" {
		return "="
	}
	return base64.RawURLEncoding.EncodeToString([]byte(value))
}

func (a authState) key(typ, id string) string {
	return a.session + "." + authKeyToken(typ) + "." + authKeyToken(id)
}

func (a authState) get(ctx context.Context, typ string, ids []string) (map[string]json.RawMessage, error) {
	found := map[string]json.RawMessage{}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entry, err := a.kv.get(ctx, a.key(typ, id))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			case entry != nil && !entry.deleted:
				found[id] = json.RawMessage(entry.value)
			}
		}()
	}
	wg.Wait()
	return found, firstErr
}

func (a authState) set(ctx context.Context, data map[string]map[string]json.RawMessage) error {
	for typ, values := range data {
		for id, value := range values {
			key := a.key(typ, id)
			var err error
			if len(value) == 0 || string(value) == "null" {
				err = a.kv.remove(ctx, key, 0)
			} else {
				_, err = a.kv.put(ctx, key, value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// clear purges each of the session's keys: a pod may not purge the bucket's stream, only write
// its own keys (nats-auth-state-store.ts).
func (a authState) clear(ctx context.Context) error {
	keys, err := a.kv.keys(ctx, a.session+".>")
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := a.kv.purge(ctx, key); err != nil {
			return err
		}
	}
	return nil
}
