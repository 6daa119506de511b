package engine

import (
	"context"
	"encoding/json"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

// RPCHost is the host of local mode: each call goes to the Node host over the engine RPC
// (PROTOCOL.md) as the notification or request of the same meaning.
type RPCHost struct{ Peer *Peer }

var _ hostapi.Host = RPCHost{}

func (h RPCHost) SetStatus(status, reason string) {
	params := map[string]any{"status": status}
	if reason != "" {
		params["reason"] = reason
	}
	h.Peer.Notify("status", params)
}

func (h RPCHost) SetMe(me *hostapi.Me) {
	h.Peer.Notify("me", map[string]any{"me": me})
}

func (h RPCHost) SetVersions(versions hostapi.Versions) {
	h.Peer.Notify("versions", versions)
}

func (h RPCHost) Emit(event string, payload any) {
	h.Peer.Notify("event", map[string]any{"event": event, "payload": payload})
}

func (h RPCHost) AuthGet(ctx context.Context, typ string, ids []string) (map[string]json.RawMessage, error) {
	found := map[string]json.RawMessage{}
	err := h.Peer.Call(ctx, "auth.get", map[string]any{"type": typ, "ids": ids}, &found)
	return found, err
}

func (h RPCHost) AuthSet(ctx context.Context, data map[string]map[string]json.RawMessage) error {
	return h.Peer.Call(ctx, "auth.set", map[string]any{"data": data}, nil)
}

func (h RPCHost) AuthClear(ctx context.Context) error {
	return h.Peer.Call(ctx, "auth.clear", map[string]any{}, nil)
}

func (h RPCHost) SaveMedia(ctx context.Context, file hostapi.SpooledFile) (json.RawMessage, error) {
	var media json.RawMessage
	err := h.Peer.Call(ctx, "media.save", file, &media)
	return media, err
}
