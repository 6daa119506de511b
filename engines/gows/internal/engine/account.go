package engine

import (
	"sync"
	"time"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
)

// ringingCall is an offered call not ended yet: who made it (as whatsmeow addresses them) and
// its `call.received` payload, which `call.rejected` repeats when this device declines it.
type ringingCall struct {
	creator types.JID
	payload map[string]any
}

type calls struct {
	mu      sync.Mutex
	ringing map[string]ringingCall
}

// ringingLimit: offers the server never ended are forgotten beyond the last ones.
const ringingLimit = 256

func (c *calls) ring(id string, call ringingCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ringing == nil {
		c.ringing = map[string]ringingCall{}
	}
	if len(c.ringing) >= ringingLimit {
		for old := range c.ringing {
			delete(c.ringing, old)
			break
		}
	}
	c.ringing[id] = call
}

func (c *calls) end(id string) (ringingCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	call, ok := c.ringing[id]
	delete(c.ringing, id)
	return call, ok
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// callPayload is NOWEB's CallPayload: id, from, timestamp, isVideo, isGroup, _data.
func (e *Engine) callPayload(meta types.BasicCallMeta, remote types.CallRemoteMeta, isVideo bool, status string) map[string]any {
	from := e.contactID(e.lifetime(), meta.CallCreator, meta.CallCreatorAlt)
	data := map[string]any{
		"id": meta.CallID, "from": meta.From.String(), "chatId": meta.From.String(), "status": status, "isVideo": isVideo,
		"isGroup": !meta.GroupJID.IsEmpty(), "date": meta.Timestamp.UnixMilli(),
	}
	if !meta.GroupJID.IsEmpty() {
		data["groupJid"] = meta.GroupJID.String()
	}
	if remote.RemotePlatform != "" {
		data["platform"] = remote.RemotePlatform
	}
	return map[string]any{
		"id": meta.CallID, "from": from, "timestamp": unixSeconds(meta.Timestamp), "isVideo": isVideo, "isGroup": !meta.GroupJID.IsEmpty(),
		"_data": data,
	}
}

func (e *Engine) callEvent(raw any) {
	switch evt := raw.(type) {
	case *events.CallOffer:
		isVideo := evt.Data != nil && len(evt.Data.GetChildrenByTag("video")) > 0
		if offer, ok := evt.Data.GetOptionalChildByTag("offer"); ok && len(offer.GetChildrenByTag("video")) > 0 {
			isVideo = true
		}
		payload := e.callPayload(evt.BasicCallMeta, evt.CallRemoteMeta, isVideo, "offer")
		// Remembered before it is emitted: the calls app may decline it as soon as it sees it.
		e.calls.ring(evt.CallID, ringingCall{creator: evt.CallCreator, payload: payload})
		e.emit("call.received", payload)
	case *events.CallAccept:
		ring, ok := e.calls.end(evt.CallID)
		payload := e.callPayload(evt.BasicCallMeta, evt.CallRemoteMeta, false, "accept")
		if ok {
			payload["from"], payload["isVideo"] = ring.payload["from"], ring.payload["isVideo"]
		}
		e.emit("call.accepted", payload)
	case *events.CallReject:
		e.callEnded(evt.BasicCallMeta, "reject")
	case *events.CallTerminate:
		e.callEnded(evt.BasicCallMeta, "terminate")
	}
}

func (e *Engine) callEnded(meta types.BasicCallMeta, status string) {
	ring, ok := e.calls.end(meta.CallID)
	payload := e.callPayload(meta, types.CallRemoteMeta{}, false, status)
	if ok {
		payload["from"], payload["isVideo"], payload["isGroup"] = ring.payload["from"], ring.payload["isVideo"], ring.payload["isGroup"]
	}
	e.emit("call.rejected", payload)
}

// presenceEvent: `presence.update` for online/offline and for typing, recording and paused in a chat.
func (e *Engine) presenceEvent(raw any) {
	ctx := e.lifetime()
	switch evt := raw.(type) {
	case *events.Presence:
		state := "online"
		if evt.Unavailable {
			state = "offline"
		}
		var lastSeen any
		if !evt.LastSeen.IsZero() {
			lastSeen = evt.LastSeen.Unix()
		}
		id := e.contactID(ctx, evt.From, types.EmptyJID)
		e.emitPresence(id, []any{map[string]any{"participant": id, "lastKnownPresence": state, "lastSeen": lastSeen}})
	case *events.ChatPresence:
		state := "paused"
		if evt.State == types.ChatPresenceComposing {
			state = "typing"
			if evt.Media == types.ChatPresenceMediaAudio {
				state = "recording"
			}
		}
		participant := e.contactID(ctx, evt.Sender, evt.SenderAlt)
		id := participant
		if evt.IsGroup {
			id = evt.Chat.String()
		}
		e.emitPresence(id, []any{map[string]any{"participant": participant, "lastKnownPresence": state, "lastSeen": nil}})
	}
}
