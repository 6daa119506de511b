package engine

import (
	"context"

	"go.mau.fi/whatsmeow/appstate"
	"go.mau.fi/whatsmeow/types"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// star stars a message or takes the star back, as NOWEB does: an app state patch `star`
// (whatsmeow's appstate.BuildStar) naming the chat, the message's id, fromMe and its sender.
func (e *Engine) star(ctx context.Context, args rpcschema.ArgsMessageStar) (any, error) {
	ref, client, chat, err := e.messageTarget(args.MessageID)
	if err != nil {
		return nil, err
	}
	// The index names a group message's sender only when it is someone else's ("0" otherwise, as
	// the phone writes it): BuildStar writes "0" when the sender is the chat itself.
	sender := chat
	if chat.Server == types.GroupServer && !ref.fromMe {
		sender = e.senderOf(ref, chat, *client.Store.ID)
	}
	patch := appstate.BuildStar(chat, sender, ref.id, ref.fromMe, args.Star)
	if err := e.labelPatch(ctx, patch, "star the message in "+ref.chatID); err != nil {
		return nil, err
	}
	return nil, nil
}
