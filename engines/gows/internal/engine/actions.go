package engine

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// messageRef is a message id of the interface: {fromMe}_{chatId}_{id}[_{participant}].
type messageRef struct {
	fromMe      bool
	chatID      string
	id          string
	participant string
}

func parseMessageRef(ref string) (messageRef, bool) {
	parts := strings.SplitN(ref, "_", 4)
	if len(parts) < 3 || (parts[0] != "true" && parts[0] != "false") {
		return messageRef{}, false
	}
	out := messageRef{fromMe: parts[0] == "true", chatID: parts[1], id: parts[2]}
	if len(parts) == 4 {
		out.participant = parts[3]
	}
	return out, true
}

// messageTarget parses the message id a command names and resolves the chat it is in: the
// reference, the logged-in client and the chat's JID, or the command's error.
func (e *Engine) messageTarget(messageID string) (messageRef, *whatsmeow.Client, types.JID, error) {
	ref, ok := parseMessageRef(messageID)
	if !ok {
		return messageRef{}, nil, types.EmptyJID, commandError(hostapi.Invalid, "messageId must be {fromMe}_{chatId}_{id}[_{participant}]")
	}
	client, chat, err := e.target(ref.chatID)
	return ref, client, chat, err
}

// unreadMessages are the incoming messages not marked read yet, per chat: what sendSeen without
// message ids marks read.
type unreadMessages struct {
	mu    sync.Mutex
	chats map[string][]types.MessageInfo
}

const unreadPerChat = 200

func (u *unreadMessages) add(chatID string, info types.MessageInfo) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.chats == nil {
		u.chats = map[string][]types.MessageInfo{}
	}
	list := append(u.chats[chatID], info)
	if len(list) > unreadPerChat {
		list = list[len(list)-unreadPerChat:]
	}
	u.chats[chatID] = list
}

func (u *unreadMessages) take(chatID string, ids map[string]bool) []types.MessageInfo {
	u.mu.Lock()
	defer u.mu.Unlock()
	var taken, kept []types.MessageInfo
	for _, info := range u.chats[chatID] {
		if ids == nil || ids[info.ID] {
			taken = append(taken, info)
		} else {
			kept = append(kept, info)
		}
	}
	u.chats[chatID] = kept
	return taken
}

// senderOf is whatsmeow's sender of a referenced message: ours, the chat's other side, or the group member.
func (e *Engine) senderOf(ref messageRef, chat types.JID, own types.JID) types.JID {
	if ref.fromMe {
		return own.ToNonAD()
	}
	if ref.participant != "" {
		if jid, err := libraryJID(ref.participant); err == nil {
			return jid
		}
	}
	return chat
}

func (e *Engine) react(ctx context.Context, args rpcschema.ArgsMessageReact) (any, error) {
	ref, client, chat, err := e.messageTarget(args.MessageID)
	if err != nil {
		return nil, err
	}
	msg := client.BuildReaction(chat, e.senderOf(ref, chat, *client.Store.ID), ref.id, args.Reaction)
	resp, err := client.SendMessage(ctx, chat, msg)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not react in %s: %v", ref.chatID, err)
	}
	me := e.me()
	var participant any
	if chat.Server == types.GroupServer {
		participant = me["id"]
	}
	payload := map[string]any{
		"id": messageID(true, ref.chatID, resp.ID, ""), "from": me["id"], "fromMe": true, "participant": participant,
		"to": ref.chatID, "timestamp": resp.Timestamp.Unix(), "source": "api",
		"reaction": map[string]any{"text": args.Reaction, "messageId": args.MessageID},
	}
	e.emit("message.reaction", payload)
	return payload, nil
}

func (e *Engine) sendSeen(ctx context.Context, args rpcschema.ArgsChatSeen) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "sendSeen needs chatId")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	named := args.MessageIDs
	if args.MessageID != nil && *args.MessageID != "" {
		named = append(named, *args.MessageID)
	}
	type target struct {
		ref    string
		id     string
		sender types.JID
	}
	var targets []target
	if len(named) > 0 {
		wanted := map[string]bool{}
		for _, full := range named {
			ref, ok := parseMessageRef(full)
			if !ok || ref.fromMe {
				continue
			}
			if ref.participant == "" && args.Participant != nil {
				ref.participant = *args.Participant
			}
			wanted[ref.id] = true
			targets = append(targets, target{ref: full, id: ref.id, sender: e.senderOf(ref, chat, *client.Store.ID)})
		}
		e.unread.take(args.ChatID, wanted)
	} else {
		me := e.me()
		for _, info := range e.unread.take(args.ChatID, nil) {
			addr := e.addressOf(ctx, info.MessageSource, me)
			participant := addr.participant
			targets = append(targets, target{ref: messageID(false, addr.chatID, info.ID, participant), id: info.ID, sender: info.Sender})
		}
	}
	// One receipt per sender (a group's members each get theirs).
	bySender := map[types.JID][]string{}
	var order []types.JID
	for _, t := range targets {
		if _, seen := bySender[t.sender]; !seen {
			order = append(order, t.sender)
		}
		bySender[t.sender] = append(bySender[t.sender], t.id)
	}
	for _, sender := range order {
		if err := client.MarkRead(ctx, bySender[sender], time.Now(), chat, sender); err != nil {
			return nil, commandError(hostapi.EngineError, "GOWS could not send read receipts to %s: %v", args.ChatID, err)
		}
	}
	ids := make([]string, 0, len(targets))
	for _, t := range targets {
		ids = append(ids, t.ref)
	}
	return map[string]any{"chatId": args.ChatID, "messageIds": ids}, nil
}

func (e *Engine) setTyping(ctx context.Context, args rpcschema.ArgsChatTyping) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "setTyping needs chatId and typing")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	state := types.ChatPresencePaused
	if args.Typing {
		state = types.ChatPresenceComposing
	}
	if err := client.SendChatPresence(ctx, chat, state, types.ChatPresenceMediaText); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not send the chat state to %s: %v", args.ChatID, err)
	}
	return nil, nil
}

func (e *Engine) sendLocation(ctx context.Context, args rpcschema.ArgsSendLocation) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "sendLocation needs chatId, latitude and longitude")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	loc := &waE2E.LocationMessage{DegreesLatitude: proto.Float64(args.Latitude), DegreesLongitude: proto.Float64(args.Longitude)}
	if args.Title != nil && *args.Title != "" {
		loc.Name = args.Title
	}
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		loc.ContextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	return e.send(ctx, client, chat, args.ChatID, &waE2E.Message{LocationMessage: loc}, args.ID)
}
