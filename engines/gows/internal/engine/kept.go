package engine

import "sync"

// keptByID holds the last values put, by id, the oldest forgotten first once there are more
// than the limit a put names; safe for concurrent use, and ready as its zero value. What the
// engine remembers of recent messages in memory (polls.go, forward.go) is kept in one.
type keptByID[V any] struct {
	mu     sync.Mutex
	values map[string]V
	order  []string
}

func (k *keptByID[V]) put(id string, value V, limit int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.values == nil {
		k.values = map[string]V{}
	}
	if _, ok := k.values[id]; !ok {
		k.order = append(k.order, id)
		if len(k.order) > limit {
			delete(k.values, k.order[0])
			k.order = k.order[1:]
		}
	}
	k.values[id] = value
}

func (k *keptByID[V]) get(id string) (V, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	value, ok := k.values[id]
	return value, ok
}
