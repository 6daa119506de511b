package engine

import (
	"context"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// sendButtonReply answers a buttons message as a tap on one of its buttons does, as NOWEB sends
// it: a ButtonsResponseMessage (DISPLAY_TEXT) naming the button's id and text, quoting the buttons
// message when replyTo (or reply_to, as the engine pod's proxy sends it) names it.
func (e *Engine) sendButtonReply(ctx context.Context, args rpcschema.ArgsSendButtonReply) (any, error) {
	if args.ChatID == "" || args.SelectedButtonID == "" || args.SelectedDisplayText == "" {
		return nil, commandError(hostapi.Invalid, "sendButtonReply needs chatId, selectedButtonID and selectedDisplayText")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	reply := &waE2E.ButtonsResponseMessage{
		SelectedButtonID: proto.String(args.SelectedButtonID),
		Response:         &waE2E.ButtonsResponseMessage_SelectedDisplayText{SelectedDisplayText: args.SelectedDisplayText},
		Type:             waE2E.ButtonsResponseMessage_DISPLAY_TEXT.Enum(),
	}
	if args.ReplyTo == nil || *args.ReplyTo == "" {
		args.ReplyTo = args.ReplyTo_2
	}
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		reply.ContextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	return e.send(ctx, client, chat, args.ChatID, &waE2E.Message{ButtonsResponseMessage: reply}, args.ID)
}
