package engine

import (
	"context"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The chats operations GOWS has so far (engine-pod/src/capabilities/chats.ts): edits and deletes
// for everyone as protocol messages, the account's presence, and presence subscriptions.

// editMessage: a MESSAGE_EDIT of one of the account's messages; `message.edited` as NOWEB emits it.
func (e *Engine) editMessage(ctx context.Context, args rpcschema.ArgsMessageEdit) (any, error) {
	if args.Text == "" {
		return nil, commandError(hostapi.Invalid, "editMessage needs messageId and text")
	}
	ref, ok := parseMessageRef(args.MessageID)
	if !ok || !ref.fromMe {
		return nil, commandError(hostapi.Invalid, "messageId must be a message the account sent: true_{chatId}_{id}")
	}
	client, chat, err := e.target(ref.chatID)
	if err != nil {
		return nil, err
	}
	return nil, e.sendProtocol(ctx, client.BuildEdit(chat, ref.id, &waE2E.Message{Conversation: proto.String(args.Text)}), chat, ref.chatID, "edit")
}

// deleteMessage: a REVOKE for everyone (another member's only as a group admin); `message.revoked`.
func (e *Engine) deleteMessage(ctx context.Context, args rpcschema.ArgsMessageDelete) (any, error) {
	ref, client, chat, err := e.messageTarget(args.MessageID)
	if err != nil {
		return nil, err
	}
	sender := types.EmptyJID
	if !ref.fromMe {
		sender = e.senderOf(ref, chat, *client.Store.ID)
	}
	return nil, e.sendProtocol(ctx, client.BuildRevoke(chat, sender, ref.id), chat, ref.chatID, "delete")
}

// sendProtocol sends an edit or revoke, then reports it as the library reports one from the phone.
func (e *Engine) sendProtocol(ctx context.Context, m *waE2E.Message, chat types.JID, chatID, what string) error {
	client, err := e.requireClient()
	if err != nil {
		return err
	}
	resp, err := client.SendMessage(ctx, chat, m)
	if err != nil {
		return commandError(hostapi.EngineError, "GOWS could not %s the message in %s: %v", what, chatID, err)
	}
	info := types.MessageInfo{
		MessageSource: types.MessageSource{Chat: chat, Sender: client.Store.ID.ToNonAD(), IsFromMe: true, IsGroup: chat.Server == types.GroupServer},
		ID:            resp.ID,
		Timestamp:     resp.Timestamp,
	}
	// An edit comes wrapped (editedMessage.message.protocolMessage), a revoke bare.
	pm := m.GetProtocolMessage()
	if pm == nil {
		pm = m.GetEditedMessage().GetMessage().GetProtocolMessage()
	}
	e.protocolMessage(&events.Message{Info: info, Message: m}, pm, address{chatID: chatID}, e.me())
	return nil
}

// setPresence: online or offline everywhere, or a chat state (typing, recording, paused) in one chat.
func (e *Engine) setPresence(ctx context.Context, args rpcschema.SessionPresenceRequest) (any, error) {
	if args.Presence == "online" || args.Presence == "offline" {
		client, err := e.requireClient()
		if err != nil {
			return nil, err
		}
		state := types.PresenceAvailable
		if args.Presence == "offline" {
			state = types.PresenceUnavailable
		}
		if err := client.SendPresence(ctx, state); err != nil {
			return nil, commandError(hostapi.EngineError, "GOWS could not set the presence %s: %v", args.Presence, err)
		}
		return nil, nil
	}
	client, chat, err := e.target(value(args.ChatID))
	if err != nil {
		return nil, err
	}
	state, media := types.ChatPresenceComposing, types.ChatPresenceMediaText
	switch args.Presence {
	case "recording":
		media = types.ChatPresenceMediaAudio
	case "paused":
		state = types.ChatPresencePaused
	}
	if err := client.SendChatPresence(ctx, chat, state, media); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not send the chat state to %s: %v", value(args.ChatID), err)
	}
	return nil, nil
}

// subscribePresence: the chat's presence updates follow as `presence.update`.
func (e *Engine) subscribePresence(ctx context.Context, args rpcschema.ArgsPresenceSubscribe) (any, error) {
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	if err := client.SubscribePresence(ctx, chat); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not subscribe to the presence of %s: %v", args.ChatID, err)
	}
	e.heard.subscribed(args.ChatID)
	return nil, nil
}
