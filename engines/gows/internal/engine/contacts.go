package engine

import (
	"context"
	"strings"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/appstate"
	"go.mau.fi/whatsmeow/proto/waSyncAction"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Issue 16's Contacts (engine-pod/src/capabilities/contacts.ts) on whatsmeow: the contacts are
// those its contact store holds (push names seen, the address book's app state, the history
// sync) and those blocked; the rest are queries: IsOnWhatsApp, GetUserInfo (the About text),
// GetProfilePictureInfo, GetBlocklist and UpdateBlocklist; naming a contact is a `contactAction`
// app state patch, as the phone makes it. Answered in NOWEB's shape.

// contactCall: the logged-in client and the contact's jid (`<number>@c.us` or `<id>@lid`).
func (e *Engine) contactCall(id, method string) (*whatsmeow.Client, string, types.JID, error) {
	if id == "" {
		return nil, "", types.EmptyJID, commandError(hostapi.Invalid, "%s needs id, <number>@c.us or <id>@lid", method)
	}
	client, err := e.loggedIn()
	if err != nil {
		return nil, "", types.EmptyJID, err
	}
	jid, err := libraryJID(id)
	if err != nil || (jid.Server != types.DefaultUserServer && jid.Server != types.HiddenUserServer) {
		return nil, "", types.EmptyJID, commandError(hostapi.Invalid, "%s needs id, <number>@c.us or <id>@lid, got %q", method, id)
	}
	return client, id, jid.ToNonAD(), nil
}

// blocked: the block list as the service has it now, by the interface's contact ids and by jid,
// and its jids.
func (e *Engine) blocked(ctx context.Context, client *whatsmeow.Client) (map[string]bool, []types.JID, error) {
	list, err := client.GetBlocklist(ctx)
	if err != nil {
		return nil, nil, commandError(hostapi.EngineError, "GOWS could not read the block list: %v", err)
	}
	out := make(map[string]bool, len(list.JIDs))
	jids := make([]types.JID, 0, len(list.JIDs))
	for _, jid := range list.JIDs {
		out[e.contactID(ctx, jid.ToNonAD(), types.EmptyJID)] = true
		out[jid.ToNonAD().String()] = true
		jids = append(jids, jid.ToNonAD())
	}
	return out, jids, nil
}

// contactRecord is the protocol's Contact of what the store knows of jid.
func (e *Engine) contactRecord(ctx context.Context, client *whatsmeow.Client, jid types.JID, info types.ContactInfo, blocked map[string]bool) map[string]any {
	id := e.contactID(ctx, jid, types.EmptyJID)
	var number, lid any
	if phone, ok := strings.CutSuffix(id, "@c.us"); ok {
		number = phone
		if found, err := e.store.GetLIDForPN(ctx, types.NewJID(phone, types.DefaultUserServer)); err == nil && !found.IsEmpty() {
			lid = found.User + "@lid"
		}
	}
	if jid.Server == types.HiddenUserServer {
		lid = jid.User + "@lid"
	}
	orNull := func(value string) any {
		if value == "" {
			return nil
		}
		return value
	}
	shortName := info.FirstName
	if shortName == "" && info.FullName != "" {
		shortName = strings.Fields(info.FullName)[0]
	}
	own := client.Store.ID
	return map[string]any{
		"id":          id,
		"number":      number,
		"lid":         lid,
		"name":        orNull(info.FullName),
		"pushname":    orNull(info.PushName),
		"shortName":   orNull(shortName),
		"isMe":        own != nil && (id == own.User+"@c.us" || (lid != nil && lid == client.Store.GetLID().User+"@lid")),
		"isUser":      true,
		"isGroup":     false,
		"isWAContact": true,
		"isMyContact": info.FullName != "",
		"isBlocked":   blocked[id] || blocked[jid.String()],
	}
}

// contacts: every contact the store holds and every blocked one, once each (by their interface id).
func (e *Engine) contacts(ctx context.Context) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	blocked, blockedJIDs, err := e.blocked(ctx, client)
	if err != nil {
		return nil, err
	}
	all, err := client.Store.Contacts.GetAllContacts(ctx)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not read its contacts: %v", err)
	}
	seen := map[string]bool{}
	out := []any{}
	add := func(jid types.JID, info types.ContactInfo) {
		if jid.Server != types.DefaultUserServer && jid.Server != types.HiddenUserServer {
			return
		}
		record := e.contactRecord(ctx, client, jid, info, blocked)
		if id := record["id"].(string); !seen[id] {
			seen[id] = true
			out = append(out, record)
		}
	}
	for jid, info := range all {
		add(jid, info)
	}
	for _, jid := range blockedJIDs {
		info, _ := client.Store.Contacts.GetContact(ctx, jid)
		add(jid, info)
	}
	return out, nil
}

// contact: one contact; a number the service has no account for is NOT_FOUND.
func (e *Engine) contact(ctx context.Context, args rpcschema.ContactIDParams) (any, error) {
	client, id, jid, err := e.contactCall(args.ID, "contact")
	if err != nil {
		return nil, err
	}
	if jid.Server == types.DefaultUserServer {
		found, err := client.IsOnWhatsApp(ctx, []string{"+" + jid.User})
		if err != nil {
			return nil, commandError(hostapi.EngineError, "GOWS could not check %s: %v", id, err)
		}
		exists := false
		for _, result := range found {
			exists = exists || result.IsIn
		}
		if !exists {
			return nil, commandError(hostapi.NotFound, "%s has no account with the messaging service", id)
		}
	}
	blocked, _, err := e.blocked(ctx, client)
	if err != nil {
		return nil, err
	}
	info, err := client.Store.Contacts.GetContact(ctx, jid)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not read the contact %s: %v", id, err)
	}
	return e.contactRecord(ctx, client, jid, info, blocked), nil
}

// contactAbout: the About text (usync `status`), or null when hidden or not set.
func (e *Engine) contactAbout(ctx context.Context, args rpcschema.ContactIDParams) (any, error) {
	client, id, jid, err := e.contactCall(args.ID, "contactAbout")
	if err != nil {
		return nil, err
	}
	infos, err := client.GetUserInfo(ctx, []types.JID{jid})
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not read the About text of %s: %v", id, err)
	}
	for _, info := range infos {
		if info.Status != "" {
			return info.Status, nil
		}
	}
	return nil, nil
}

// contactPicture: where the contact's picture can be downloaded, or null when hidden or not set.
func (e *Engine) contactPicture(ctx context.Context, args rpcschema.ContactIDParams) (any, error) {
	client, id, jid, err := e.contactCall(args.ID, "contactPicture")
	if err != nil {
		return nil, err
	}
	return pictureURL(ctx, client, jid, "read the picture of "+id)
}

// setBlocked blocks or unblocks a contact (the block list query).
func (e *Engine) setBlocked(ctx context.Context, args rpcschema.ParamsSetBlocked) (any, error) {
	client, id, jid, err := e.contactCall(args.ID, "setBlocked")
	if err != nil {
		return nil, err
	}
	action, doing := events.BlocklistChangeActionBlock, "block"
	if !args.Blocked {
		action, doing = events.BlocklistChangeActionUnblock, "unblock"
	}
	if _, err := client.UpdateBlocklist(ctx, jid, action); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not %s %s: %v", doing, id, err)
	}
	return nil, nil
}

// updateContact: the name the account keeps for the contact in its address book, a `contactAction`
// mutation of the `critical_unblock_low` collection (whatsmeow has no builder for it; Baileys'
// addOrEditContact makes the same). whatsmeow fetches its patch back and keeps the name in its store.
func (e *Engine) updateContact(ctx context.Context, args rpcschema.ParamsUpdateContact) (any, error) {
	if strings.TrimSpace(args.FirstName) == "" {
		return nil, commandError(hostapi.Invalid, "updateContact needs id and firstName")
	}
	client, id, jid, err := e.contactCall(args.ID, "updateContact")
	if err != nil {
		return nil, err
	}
	fullName := strings.TrimSpace(strings.TrimSpace(args.FirstName) + " " + strings.TrimSpace(args.LastName))
	firstName := strings.TrimSpace(args.FirstName)
	save := true
	patch := appstate.PatchInfo{
		Type: appstate.WAPatchCriticalUnblockLow,
		Mutations: []appstate.MutationInfo{{
			Index:   []string{appstate.IndexContact, jid.String()},
			Version: 2,
			Value: &waSyncAction.SyncActionValue{
				ContactAction: &waSyncAction.ContactAction{FullName: &fullName, FirstName: &firstName, SaveOnPrimaryAddressbook: &save},
			},
		}},
	}
	if err := client.SendAppState(ctx, patch); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not name %s: %v", id, err)
	}
	return nil, nil
}
