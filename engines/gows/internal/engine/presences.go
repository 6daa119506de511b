package engine

import (
	"context"
	"sync"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// heardPresences: what the engine heard of each chat's presence (`presence.update`), merged
// participant by participant as NOWEB keeps it, and the chats subscribed to (empty until heard).
type heardPresences struct {
	mu    sync.Mutex
	chats map[string][]map[string]any
	order []string
}

// remember: the update's participants replace what was known of them in the chat.
func (h *heardPresences) remember(id string, presences []any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ensure(id)
	changed := map[string]bool{}
	fresh := make([]map[string]any, 0, len(presences))
	for _, p := range presences {
		if entry, ok := p.(map[string]any); ok {
			participant, _ := entry["participant"].(string)
			changed[participant] = true
			fresh = append(fresh, entry)
		}
	}
	kept := make([]map[string]any, 0, len(h.chats[id])+len(fresh))
	for _, entry := range h.chats[id] {
		if participant, _ := entry["participant"].(string); !changed[participant] {
			kept = append(kept, entry)
		}
	}
	h.chats[id] = append(kept, fresh...)
}

// subscribed: the chat is listed from now on, with nothing heard yet if nothing was.
func (h *heardPresences) subscribed(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ensure(id)
}

func (h *heardPresences) ensure(id string) {
	if h.chats == nil {
		h.chats = map[string][]map[string]any{}
	}
	if _, ok := h.chats[id]; !ok {
		h.chats[id] = []map[string]any{}
		h.order = append(h.order, id)
	}
}

// chat: the chat's ChatPresences, and whether it is known at all.
func (h *heardPresences) chat(id string) (map[string]any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	known, ok := h.chats[id]
	presences := make([]any, 0, len(known))
	for _, entry := range known {
		presences = append(presences, entry)
	}
	return map[string]any{"id": id, "presences": presences}, ok
}

func (h *heardPresences) list() []any {
	h.mu.Lock()
	ids := append([]string(nil), h.order...)
	h.mu.Unlock()
	all := make([]any, 0, len(ids))
	for _, id := range ids {
		chat, _ := h.chat(id)
		all = append(all, chat)
	}
	return all
}

// emitPresence: `presence.update`, kept first for `presences` and `presence`.
func (e *Engine) emitPresence(id string, presences []any) {
	e.heard.remember(id, presences)
	e.emit("presence.update", map[string]any{"id": id, "presences": presences})
}

// presences: every chat subscribed to or heard of, with what is known of its presence.
func (e *Engine) presences(context.Context) (any, error) {
	if _, err := e.requireClient(); err != nil {
		return nil, err
	}
	return e.heard.list(), nil
}

// presence: what was heard of the chat; subscribes first when it is not known yet (as NOWEB).
func (e *Engine) presence(ctx context.Context, args rpcschema.ArgsPresenceGet) (any, error) {
	if chat, ok := e.heard.chat(args.ChatID); ok {
		return chat, nil
	}
	if _, err := e.subscribePresence(ctx, rpcschema.ArgsPresenceSubscribe{ChatID: args.ChatID}); err != nil {
		return nil, err
	}
	chat, _ := e.heard.chat(args.ChatID)
	return chat, nil
}
