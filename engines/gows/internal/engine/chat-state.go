package engine

import (
	"context"
	"time"

	"go.mau.fi/whatsmeow/appstate"
	"go.mau.fi/whatsmeow/proto/waSyncAction"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The chats' app state operations (engine-pod/src/capabilities/chats.ts): archive, mark unread,
// delete and clear are app state patches whatsmeow uploads (SendAppState), as the phone makes
// them. Their message range names no message: whatsmeow then sends the current time as the last
// message's, which the service takes as "everything so far".

// chatState parses the command's chat and uploads the patch made for it.
func (e *Engine) chatState(ctx context.Context, chatID, method, doing string, build func(types.JID) (appstate.PatchInfo, error)) (any, error) {
	if chatID == "" {
		return nil, commandError(hostapi.Invalid, "%s needs chatId", method)
	}
	client, chat, err := e.target(chatID)
	if err != nil {
		return nil, err
	}
	patch, err := build(chat)
	if err != nil {
		return nil, err
	}
	if err := client.SendAppState(ctx, patch); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not %s %s: %v", doing, chatID, err)
	}
	return nil, nil
}

// archiveChat archives or unarchives (archiving unpins too); `chat.archive` follows, as for a
// change the phone made. whatsmeow reports the patch it fetches back only when that fetch is not
// a full sync (right after pairing it can be), so the operation reports its change itself and
// the second report of the same state is dropped, as on NOWEB.
func (e *Engine) archiveChat(ctx context.Context, args rpcschema.ArgsChatArchive) (any, error) {
	result, err := e.chatState(ctx, args.ChatID, "archiveChat", "archive", func(chat types.JID) (appstate.PatchInfo, error) {
		return appstate.BuildArchive(chat, args.Archive, time.Time{}, nil), nil
	})
	if err == nil {
		chat, _ := libraryJID(args.ChatID)
		e.reportArchive(chat, args.Archive)
	}
	return result, err
}

func (e *Engine) markChatUnread(ctx context.Context, args rpcschema.ArgsChatUnread) (any, error) {
	return e.chatState(ctx, args.ChatID, "markChatUnread", "mark unread", func(chat types.JID) (appstate.PatchInfo, error) {
		return appstate.BuildMarkChatAsRead(chat, false, time.Time{}, nil), nil
	})
}

func (e *Engine) deleteChat(ctx context.Context, args rpcschema.ArgsChatDelete) (any, error) {
	return e.chatState(ctx, args.ChatID, "deleteChat", "delete", func(chat types.JID) (appstate.PatchInfo, error) {
		return appstate.BuildDeleteChat(chat, time.Time{}, nil), nil
	})
}

// clearMessages: whatsmeow has no builder for it; the `clearChat` mutation as Baileys and the
// phone make it (index: chat, delete starred "1", delete media "0"), in regular_high.
func (e *Engine) clearMessages(ctx context.Context, args rpcschema.ArgsChatClearMessages) (any, error) {
	return e.chatState(ctx, args.ChatID, "clearMessages", "clear", func(chat types.JID) (appstate.PatchInfo, error) {
		return appstate.PatchInfo{
			Type: appstate.WAPatchRegularHigh,
			Mutations: []appstate.MutationInfo{{
				Index:   []string{appstate.IndexClearChat, chat.String(), "1", "0"},
				Version: 6,
				Value: &waSyncAction.SyncActionValue{ClearChatAction: &waSyncAction.ClearChatAction{
					MessageRange: &waSyncAction.SyncActionMessageRange{LastMessageTimestamp: proto.Int64(time.Now().Unix())},
				}},
			}},
		}, nil
	})
}

// archived: `chat.archive` for an archive change synced from the app state (the phone's, or the
// account's own fetched back), once per change of the chat's state.
func (e *Engine) archived(evt *events.Archive) {
	e.reportArchive(evt.JID, evt.Action.GetArchived())
}

// chatDeleted: a chat deleted on the phone (or by this device, fetched back), relayed as Baileys
// relays its own `chats.delete`, `engine.event` `{event: "chats.delete", data: {items: [jid]}}`: the
// history forgets the chat (engine-pod/src/history/history-recorder.ts), so the chats lists drop it
// as the phone does; the interface has no chat-deleted event. Not for a full sync's deletions, as
// Baileys, which replays the app state's past rather than a change.
func (e *Engine) chatDeleted(evt *events.DeleteChat) {
	if evt.FromFullSync {
		return
	}
	e.emit("engine.event", map[string]any{"event": "chats.delete", "data": map[string]any{"items": []string{evt.JID.String()}}})
}

func (e *Engine) reportArchive(chat types.JID, archived bool) {
	id := chat.String()
	if chat.Server != types.GroupServer {
		id = e.contactID(e.lifetime(), chat, types.EmptyJID)
	}
	e.mu.Lock()
	if e.archivedChats == nil {
		e.archivedChats = map[string]bool{}
	}
	was, known := e.archivedChats[id]
	e.archivedChats[id] = archived
	e.mu.Unlock()
	if known && was == archived {
		return
	}
	e.emit("chat.archive", map[string]any{"id": id, "timestamp": time.Now().Unix(), "archived": archived})
}
