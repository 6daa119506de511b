package engine

import (
	"context"

	"go.mau.fi/util/random"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// sendEvent: an event message (an invitation its members answer going, not going or maybe), with
// a message secret as polls have one (their answers are encrypted with it), in the fields NOWEB
// sends: name, description, start, end, the place by name, whether a guest may bring one more.
func (e *Engine) sendEvent(ctx context.Context, args rpcschema.EventMessageRequest) (any, error) {
	if args.ChatID == "" || args.Event.Name == "" {
		return nil, commandError(hostapi.Invalid, "sendEvent needs chatId and event.name")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	event := &waE2E.EventMessage{
		IsCanceled:         proto.Bool(false),
		Name:               proto.String(args.Event.Name),
		Description:        args.Event.Description,
		StartTime:          proto.Int64(int64(args.Event.StartTime)),
		EndTime:            int64Of(args.Event.EndTime),
		ExtraGuestsAllowed: proto.Bool(value(args.Event.ExtraGuestsAllowed)),
	}
	if args.Event.Location != nil {
		event.Location = &waE2E.LocationMessage{DegreesLatitude: proto.Float64(0), DegreesLongitude: proto.Float64(0), Name: proto.String(args.Event.Location.Name)}
	}
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		event.ContextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	msg := &waE2E.Message{EventMessage: event, MessageContextInfo: &waE2E.MessageContextInfo{MessageSecret: random.Bytes(32)}}
	return e.send(ctx, client, chat, args.ChatID, msg, nil)
}

// int64Of: an optional number of the params as the protobuf's optional int64.
func int64Of(n *int) *int64 {
	if n == nil {
		return nil
	}
	return proto.Int64(int64(*n))
}
