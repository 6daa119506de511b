package engine

import (
	"context"
	"time"

	"go.mau.fi/whatsmeow/types"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// readChatMessages: read receipts for the chat's unread incoming messages this engine received
// (of the last `days`, the newest `messages` of them), answering their ids newest first, as NOWEB.
func (e *Engine) readChatMessages(ctx context.Context, args rpcschema.ArgsChatRead) (any, error) {
	if args.ChatID == "" || args.Days < 1 || value(args.Messages) < 0 {
		return nil, commandError(hostapi.Invalid, "readChatMessages needs chatId and days (at least 1), messages at least 1 when given")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	taken := e.unread.takeRecent(args.ChatID, time.Now().Add(-time.Duration(args.Days)*24*time.Hour), value(args.Messages))
	bySender := map[types.JID][]string{}
	var order []types.JID
	me := e.me()
	ids := make([]string, 0, len(taken))
	for _, info := range taken {
		if _, seen := bySender[info.Sender]; !seen {
			order = append(order, info.Sender)
		}
		bySender[info.Sender] = append(bySender[info.Sender], info.ID)
		addr := e.addressOf(ctx, info.MessageSource, me)
		ids = append(ids, messageID(false, addr.chatID, info.ID, addr.participant))
	}
	for _, sender := range order {
		if err := client.MarkRead(ctx, bySender[sender], time.Now(), chat, sender); err != nil {
			return nil, commandError(hostapi.EngineError, "GOWS could not send read receipts to %s: %v", args.ChatID, err)
		}
	}
	return map[string]any{"ids": ids}, nil
}

// takeRecent takes the chat's unread messages received since `since`, the newest `limit` of them
// (all with 0), newest first; the others stay unread.
func (u *unreadMessages) takeRecent(chatID string, since time.Time, limit int) []types.MessageInfo {
	u.mu.Lock()
	defer u.mu.Unlock()
	list := u.chats[chatID]
	if len(list) == 0 {
		return nil
	}
	var taken []types.MessageInfo
	kept := make([]types.MessageInfo, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		if !list[i].Timestamp.Before(since) && (limit == 0 || len(taken) < limit) {
			taken = append(taken, list[i])
		} else {
			kept = append([]types.MessageInfo{list[i]}, kept...)
		}
	}
	u.chats[chatID] = kept
	return taken
}
