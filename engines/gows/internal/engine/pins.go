package engine

import (
	"context"
	"math"
	"time"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// pinMessage pins a message for everyone in its chat, or unpins it (a null duration), as NOWEB
// does: a PinInChatMessage (PIN_FOR_ALL / UNPIN_FOR_ALL) whose pin lasts the duration the
// message's context names (messageAddOnDurationInSecs). WhatsApp offers 24 hours, 7 and 30 days;
// the phone keeps the pin that long, so any other number is passed on as it is.
func (e *Engine) pinMessage(ctx context.Context, args rpcschema.ArgsMessagePin) (any, error) {
	if args.Duration != nil && (*args.Duration <= 0 || *args.Duration > math.MaxUint32) {
		return nil, commandError(hostapi.Invalid, "pinMessage: duration is the pin's seconds (more than 0), or null to unpin")
	}
	ref, client, chat, err := e.messageTarget(args.MessageID)
	if err != nil {
		return nil, err
	}
	pin := &waE2E.PinInChatMessage{
		Key:               client.BuildMessageKey(chat, e.senderOf(ref, chat, *client.Store.ID), ref.id),
		Type:              waE2E.PinInChatMessage_UNPIN_FOR_ALL.Enum(),
		SenderTimestampMS: proto.Int64(time.Now().UnixMilli()),
	}
	msg := &waE2E.Message{PinInChatMessage: pin}
	if args.Duration != nil {
		pin.Type = waE2E.PinInChatMessage_PIN_FOR_ALL.Enum()
		msg.MessageContextInfo = &waE2E.MessageContextInfo{MessageAddOnDurationInSecs: proto.Uint32(uint32(*args.Duration))}
	}
	if _, err := client.SendMessage(ctx, chat, msg); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not pin the message in %s: %v", ref.chatID, err)
	}
	return nil, nil
}
