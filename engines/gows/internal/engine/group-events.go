package engine

import (
	"encoding/json"
	"time"

	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
)

// The service's group notifications (`w:gp2`, parsed by whatsmeow) as the `group.v2.*` events, in
// NOWEB's shapes (engine-pod/src/engines/noweb/account-events.ts). Both modes emit them: the stdio
// proxy and the nats pod take the engine's `event` notifications alike.

// groupJoined: a group created with this account in it (whatsmeow's events.JoinedGroup, from the
// `create` notification). The whole record, since the account may not have seen the group before.
func (e *Engine) groupJoined(evt *events.JoinedGroup) {
	ctx := e.lifetime()
	e.emit("group.v2.join", map[string]any{
		"group":     e.groupRecord(ctx, &evt.GroupInfo),
		"timestamp": unixSeconds(time.Now()),
		"_data":     plainData(evt),
	})
}

// participantChange is one kind of member change of a notification, the role each member has after it.
type participantChange struct {
	kind    string
	role    string
	members []types.JID
}

// groupChanged: one notification's changes. Members first (`group.v2.participants`, then
// `group.v2.leave` / `group.v2.join` when the account itself is among them, as NOWEB orders them),
// then the group's own fields as one `group.v2.update`.
func (e *Engine) groupChanged(evt *events.GroupInfo) {
	ctx := e.lifetime()
	timestamp := unixSeconds(time.Now())
	if !evt.Timestamp.IsZero() {
		timestamp = unixSeconds(evt.Timestamp)
	}
	data := plainData(evt)
	id := evt.JID.String()
	changes := []participantChange{
		{"join", "participant", evt.Join},
		// whatsmeow parses `remove`; the service names a member leaving on their own `leave`, which
		// whatsmeow passes on unparsed.
		{"leave", "left", append(append([]types.JID{}, evt.Leave...), unknownMembers(evt.UnknownChanges, "leave")...)},
		{"promote", "admin", evt.Promote},
		{"demote", "participant", evt.Demote},
	}
	for _, change := range changes {
		if len(change.members) == 0 {
			continue
		}
		participants := make([]any, 0, len(change.members))
		for _, member := range change.members {
			participants = append(participants, map[string]any{"id": e.contactID(ctx, member, types.EmptyJID), "role": change.role})
		}
		e.emit("group.v2.participants", map[string]any{
			"type": change.kind, "group": map[string]any{"id": id}, "participants": participants, "timestamp": timestamp, "_data": data,
		})
		if !e.includesMe(change.members) {
			continue
		}
		switch change.kind {
		case "leave":
			e.emit("group.v2.leave", map[string]any{"group": map[string]any{"id": id}, "timestamp": timestamp, "_data": data})
		case "join":
			// Added, or joined by invite: the notification names only the members, so the group is
			// read from the service, off the event loop (an IQ waits for its answer).
			go e.announceJoined(evt.JID, timestamp)
		}
	}
	if update := groupUpdate(evt); len(update) > 0 {
		update["id"] = id
		e.emit("group.v2.update", map[string]any{"group": update, "timestamp": timestamp, "_data": data})
	}
}

func (e *Engine) announceJoined(jid types.JID, timestamp float64) {
	client := e.client0()
	if client == nil {
		return
	}
	ctx := e.lifetime()
	info, err := client.GetGroupInfo(ctx, jid)
	if err != nil {
		e.log.Warn("GOWS could not read a group it joined", "group", jid.String(), "err", err.Error())
		return
	}
	e.emit("group.v2.join", map[string]any{"group": e.groupRecord(ctx, info), "timestamp": timestamp, "_data": plainData(info)})
}

// groupUpdate: the fields of spec 2.8's record a notification changes (NOWEB's stub types:
// subject, description, who may send, who may add, approval, invite). Who may edit the info
// (`locked`) is not a field of the record.
func groupUpdate(evt *events.GroupInfo) map[string]any {
	update := map[string]any{}
	if evt.Name != nil {
		update["subject"] = evt.Name.Name
	}
	if evt.Topic != nil {
		update["description"] = evt.Topic.Topic
	}
	if evt.Announce != nil {
		update["membersCanSendMessages"] = !evt.Announce.IsAnnounce
	}
	if evt.MembershipApprovalMode != nil {
		update["newMembersApprovalRequired"] = evt.MembershipApprovalMode.IsJoinApprovalRequired
	}
	if evt.NewInviteLink != nil {
		update["invite"] = *evt.NewInviteLink
	}
	// whatsmeow passes `member_add_mode` on unparsed; its text is the mode.
	for _, node := range evt.UnknownChanges {
		if node.Tag == "member_add_mode" {
			if mode, ok := node.Content.([]byte); ok {
				update["membersCanAddNewMember"] = types.GroupMemberAddMode(mode) == types.GroupMemberAddModeAllMember
			}
		}
	}
	return update
}

// unknownMembers: the `participant` jids of the unparsed changes named tag.
func unknownMembers(nodes []*waBinary.Node, tag string) []types.JID {
	var members []types.JID
	for _, node := range nodes {
		if node.Tag != tag {
			continue
		}
		for _, participant := range node.GetChildrenByTag("participant") {
			if jid := participant.AttrGetter().OptionalJIDOrEmpty("jid"); !jid.IsEmpty() {
				members = append(members, jid)
			}
		}
	}
	return members
}

// includesMe: whether the account (its phone number or its LID) is among members.
func (e *Engine) includesMe(members []types.JID) bool {
	client := e.client0()
	if client == nil || client.Store.ID == nil {
		return false
	}
	for _, member := range members {
		if member.User == client.Store.ID.User || (!client.Store.LID.IsEmpty() && member.User == client.Store.LID.User) {
			return true
		}
	}
	return false
}

// plainData is a whatsmeow value as plain JSON for `_data` (jids as strings, times as RFC 3339).
func plainData(v any) map[string]any {
	out := map[string]any{}
	raw, err := json.Marshal(v)
	if err == nil {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}
