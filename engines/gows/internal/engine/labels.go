package engine

import (
	"context"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/appstate"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Labels (engine-pod/src/capabilities/contacts.ts, spec 2.9 and 6.2 `label.*`) as NOWEB does
// them: each operation is an app state patch whatsmeow uploads (`label_edit` for a label,
// `label_jid` for a chat's), and the book (label-book.go) follows both this device's patches and
// the phone's (whatsmeow's events.LabelEdit, events.LabelAssociationChat), each change once, so
// a patch whatsmeow fetches back after the operation reported it emits nothing more.
//
// Labels the phone made before pairing come with the first (full) sync of the app state, which
// whatsmeow reports as events only with EmitAppStateEventsOnFullSync (fullSyncEvents): they reach
// the book as the later changes do, label.upsert and label.chat.added included; a reconnect fetches
// only newer patches, and the book emits nothing for what it has already. A label.chat.* for a
// label the book does not know (yet) carries `label: null`, as the protocol allows.

// The operations that change labels run one after the other (labelOpsMu): each reads the book
// the one before may still change, so two creates at once would take one number and a chat set
// twice could end with both sets' labels.

// changeLabels runs change on the book and keeps the book when it changed: change's payload, or nil.
func (e *Engine) changeLabels(change func(*labelBook) map[string]any) map[string]any {
	e.labelsMu.Lock()
	defer e.labelsMu.Unlock()
	book := e.readLabels()
	payload := change(&book)
	if payload != nil {
		if err := e.kv.PutOne(e.lifetime(), labelBookType, labelBookID, book); err != nil {
			e.log.Warn("GOWS could not keep the label book", "err", err.Error())
		}
	}
	return payload
}

// The book's three changes, each emitting its event once the book is kept; the operations and
// the app state events alike make them.

func (e *Engine) upsertLabel(id, name string, color int32) {
	if payload := e.changeLabels(func(book *labelBook) map[string]any { return book.upsert(id, name, color) }); payload != nil {
		e.emit("label.upsert", payload)
	}
}

func (e *Engine) removeLabel(id string) {
	if payload := e.changeLabels(func(book *labelBook) map[string]any { return book.remove(id) }); payload != nil {
		e.emit("label.deleted", payload)
	}
}

func (e *Engine) associateLabel(labelID, chatID string, on bool) {
	payload := e.changeLabels(func(book *labelBook) map[string]any { return book.associate(labelID, chatID, on) })
	switch {
	case payload == nil:
	case on:
		e.emit("label.chat.added", payload)
	default:
		e.emit("label.chat.deleted", payload)
	}
}

// readLabels is the book as kept (empty before the first label).
func (e *Engine) readLabels() labelBook {
	book := labelBook{}
	if _, err := e.kv.Get(labelBookType, labelBookID, &book); err != nil {
		e.log.Warn("GOWS could not read the label book", "err", err.Error())
	}
	if book.Labels == nil {
		book.Labels = map[string]labelEntry{}
	}
	if book.Chats == nil {
		book.Chats = map[string][]string{}
	}
	return book
}

func (e *Engine) labelsNow() labelBook {
	e.labelsMu.Lock()
	defer e.labelsMu.Unlock()
	return e.readLabels()
}

func (e *Engine) labelEdited(evt *events.LabelEdit) {
	if evt.Action.GetDeleted() {
		e.removeLabel(evt.LabelID)
	} else {
		e.upsertLabel(evt.LabelID, evt.Action.GetName(), evt.Action.GetColor())
	}
}

func (e *Engine) chatLabelled(evt *events.LabelAssociationChat) {
	chatID := evt.JID.String()
	if evt.JID.Server != types.GroupServer {
		chatID = e.contactID(e.lifetime(), evt.JID, types.EmptyJID)
	}
	e.associateLabel(evt.LabelID, chatID, evt.Action.GetLabeled())
}

// patch uploads one app state patch.
func (e *Engine) labelPatch(ctx context.Context, patch appstate.PatchInfo, doing string) error {
	client, err := e.loggedIn()
	if err != nil {
		return err
	}
	if err := client.SendAppState(ctx, patch); err != nil {
		return commandError(hostapi.EngineError, "GOWS could not %s: %v", doing, err)
	}
	return nil
}

func (e *Engine) requireLabel(id string) (labelEntry, error) {
	entry, ok := e.labelsNow().Labels[id]
	if !ok {
		return entry, commandError(hostapi.NotFound, "the session has no label %s", id)
	}
	return entry, nil
}

func (e *Engine) labels(context.Context) (any, error) {
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	book := e.labelsNow()
	return book.list(), nil
}

// createLabel: the next free number, as the app numbers new labels.
func (e *Engine) createLabel(ctx context.Context, args rpcschema.ArgsLabelsCreate) (any, error) {
	e.labelOpsMu.Lock()
	defer e.labelOpsMu.Unlock()
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	book := e.labelsNow()
	return e.writeLabel(ctx, book.nextID(), args.Name, int32(args.Color), "create")
}

func (e *Engine) updateLabel(ctx context.Context, args rpcschema.ParamsUpdateLabel) (any, error) {
	e.labelOpsMu.Lock()
	defer e.labelOpsMu.Unlock()
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	if _, err := e.requireLabel(args.ID); err != nil {
		return nil, err
	}
	return e.writeLabel(ctx, args.ID, args.Name, int32(args.Color), "update")
}

func (e *Engine) writeLabel(ctx context.Context, id, name string, color int32, doing string) (any, error) {
	if err := e.labelPatch(ctx, appstate.BuildLabelEdit(id, name, color, false), doing+" label "+id); err != nil {
		return nil, err
	}
	e.upsertLabel(id, name, color)
	return labelRecord(id, labelEntry{Name: name, Color: color}), nil
}

// deleteLabel: the chats carrying it lose it first, as on the phone.
func (e *Engine) deleteLabel(ctx context.Context, args rpcschema.ArgsLabelsDelete) (any, error) {
	e.labelOpsMu.Lock()
	defer e.labelOpsMu.Unlock()
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	entry, err := e.requireLabel(args.ID)
	if err != nil {
		return nil, err
	}
	book := e.labelsNow()
	for _, chatID := range book.Chats[args.ID] {
		if err := e.labelChat(ctx, args.ID, chatID, false); err != nil {
			return nil, err
		}
	}
	if err := e.labelPatch(ctx, appstate.BuildLabelEdit(args.ID, entry.Name, entry.Color, true), "delete label "+args.ID); err != nil {
		return nil, err
	}
	e.removeLabel(args.ID)
	return nil, nil
}

func (e *Engine) chatLabels(_ context.Context, args rpcschema.ArgsLabelsOfChat) (any, error) {
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	book := e.labelsNow()
	return book.labelsOf(args.ChatID), nil
}

func (e *Engine) labelChats(_ context.Context, args rpcschema.ArgsLabelsChats) (any, error) {
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	chats := []any{}
	book := e.labelsNow()
	for _, chatID := range book.Chats[args.ID] {
		chats = append(chats, map[string]any{"id": chatID})
	}
	return chats, nil
}

// setChatLabels: the chat's labels from now on; a patch for each label taken off or put on.
func (e *Engine) setChatLabels(ctx context.Context, args rpcschema.ParamsSetChatLabels) (any, error) {
	e.labelOpsMu.Lock()
	defer e.labelOpsMu.Unlock()
	if _, err := e.loggedIn(); err != nil {
		return nil, err
	}
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "setChatLabels needs chatId")
	}
	book := e.labelsNow()
	for i, id := range args.LabelIDs {
		if _, ok := book.Labels[id]; !ok {
			return nil, commandError(hostapi.Invalid, "invalid request: body.labels[%d].id: the session has no label %s", i, id)
		}
	}
	wanted := map[string]bool{}
	for _, id := range args.LabelIDs {
		wanted[id] = true
	}
	current := map[string]bool{}
	for _, id := range book.ids() {
		for _, chatID := range book.Chats[id] {
			if chatID == args.ChatID {
				current[id] = true
			}
		}
	}
	for _, id := range book.ids() {
		if current[id] && !wanted[id] {
			if err := e.labelChat(ctx, id, args.ChatID, false); err != nil {
				return nil, err
			}
		}
	}
	for _, id := range args.LabelIDs {
		if !current[id] {
			if err := e.labelChat(ctx, id, args.ChatID, true); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// labelChat puts a label on a chat or takes it off: the `label_jid` patch, then the book.
func (e *Engine) labelChat(ctx context.Context, labelID, chatID string, on bool) error {
	jid, err := libraryJID(chatID)
	if err != nil {
		return commandError(hostapi.Invalid, "invalid request: body.chatId: %v", err)
	}
	doing := "take label " + labelID + " off " + chatID
	if on {
		doing = "put label " + labelID + " on " + chatID
	}
	if err := e.labelPatch(ctx, appstate.BuildLabelChat(jid, labelID, on), doing); err != nil {
		return err
	}
	e.associateLabel(labelID, chatID, on)
	return nil
}

// fullSyncEvents: the hook the store calls as whatsmeow reads a collection's version, at the start
// of each fetch (under whatsmeow's app state lock, where it reads EmitAppStateEventsOnFullSync
// too). It has whatsmeow report the first (full) sync of each collection as events, the labels the
// phone had before pairing among them, except for critical_unblock_low: with events on, whatsmeow
// writes each address book contact of its snapshot one by one instead of all at once, a write to
// the host's auth store (and the contacts' index) per contact. The flag changes only when a
// collection has no version yet, so only during the first sync after pairing: the handlers skip
// what is no news from it (an Archive, a DeleteChat with FromFullSync).
func fullSyncEvents(client *whatsmeow.Client) func(name string, version uint64) {
	return func(name string, version uint64) {
		if version != 0 {
			return
		}
		if emit := name != string(appstate.WAPatchCriticalUnblockLow); client.EmitAppStateEventsOnFullSync != emit {
			client.EmitAppStateEventsOnFullSync = emit
		}
	}
}
