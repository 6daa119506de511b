package engine

import (
	"go.mau.fi/whatsmeow/proto/waWeb"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
)

// historyBatch: records per `engine.event`, so that one event stays well under a NATS message's size.
const historyBatch = 50

// historySynced: the conversations and messages the phone sends a new companion (whatsmeow's
// events.HistorySync) go into the session's history, so that the chats lists show what the phone
// had before pairing. They are no new messages, so not `message` / `message.any` (webhooks would
// take them for new ones): they go out as `engine.event` `messaging-history.set` with the message
// records (`{messages: [record]}`, in batches), which the history recorders of both modes upsert.
func (e *Engine) historySynced(evt *events.HistorySync) {
	me, client := e.me(), e.client0()
	if me == nil || client == nil || evt.Data == nil {
		return
	}
	ctx := e.lifetime()
	var batch []map[string]any
	flush := func() {
		if len(batch) > 0 {
			e.emit("engine.event", map[string]any{"event": "messaging-history.set", "data": map[string]any{"messages": batch}})
			batch = nil
		}
	}
	for _, conversation := range evt.Data.GetConversations() {
		chat, err := types.ParseJID(conversation.GetID())
		if err != nil || chat.Server == types.BroadcastServer {
			continue
		}
		for _, item := range conversation.GetMessages() {
			msg, err := client.ParseWebMessage(chat, item.GetMessage())
			if err != nil || msg.Message == nil {
				continue
			}
			m := msg.Message
			if m.ProtocolMessage != nil || m.ReactionMessage != nil || m.PollUpdateMessage != nil || (m.SenderKeyDistributionMessage != nil && messageBody(m) == "" && !hasMedia(m)) {
				continue
			}
			ack := ackDevice
			if msg.Info.IsFromMe {
				ack = sentAck(item.GetMessage().Status)
			}
			batch = append(batch, e.record(msg.Info, m, e.addressOf(ctx, msg.Info.MessageSource, me), me, "app", ack))
			if len(batch) == historyBatch {
				flush()
			}
		}
	}
	flush()
}

// sentAck: how far an own message had come when the phone synced it (its status: ERROR 0 to
// PLAYED 5, one above the interface's acks); SERVER when the phone does not say.
func sentAck(status *waWeb.WebMessageInfo_Status) int {
	if status == nil {
		return ackServer
	}
	return int(*status) - 1
}
