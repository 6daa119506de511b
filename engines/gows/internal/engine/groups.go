package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The peer's Groups operations (engine-pod/src/capabilities/groups.ts) on whatsmeow's `w:g2`
// queries. Groups are answered as spec 2.8's record, like NOWEB's. Not here: the picture (whatsmeow
// takes a JPEG the engine would first have to make) and delete (WhatsApp has none).

// loggedIn is the client while the session is logged in.
func (e *Engine) loggedIn() (*whatsmeow.Client, error) {
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	if client.Store.ID == nil || !client.IsLoggedIn() {
		return nil, commandError(hostapi.WrongStatus, "the session is not logged in")
	}
	return client, nil
}

// groupCall: the logged-in client and the group's jid (none when id is empty).
func (e *Engine) groupCall(id, method string) (*whatsmeow.Client, types.JID, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, types.EmptyJID, err
	}
	if id == "" {
		return client, types.EmptyJID, nil
	}
	jid, err := types.ParseJID(id)
	if err != nil || jid.Server != types.GroupServer {
		return nil, types.EmptyJID, commandError(hostapi.Invalid, "%s needs a group id, <id>@g.us", method)
	}
	return client, jid, nil
}

// groupFailure: the service's refusals in the interface's terms (dispatch's NOT_FOUND, WRONG_STATUS),
// by the IQ error's code: the service's texts vary with the query.
func groupFailure(doing string, err error) error {
	code := 0
	var iqErr *whatsmeow.IQError
	if errors.As(err, &iqErr) {
		code = iqErr.Code
	}
	switch {
	case code == 404 || code == 406 || code == 410 || errors.Is(err, whatsmeow.ErrGroupNotFound) || errors.Is(err, whatsmeow.ErrInviteLinkInvalid) ||
		errors.Is(err, whatsmeow.ErrInviteLinkRevoked):
		return commandError(hostapi.NotFound, "GOWS could not %s: the service knows no such group or invite", doing)
	case code == 401 || code == 403 || errors.Is(err, whatsmeow.ErrGroupInviteLinkUnauthorized) || errors.Is(err, whatsmeow.ErrNotInGroup):
		return commandError(hostapi.WrongStatus, "GOWS could not %s: the service allows it to admins only (%v)", doing, err)
	}
	return commandError(hostapi.EngineError, "GOWS could not %s: %v", doing, err)
}

// groupRecord is spec 2.8's record of whatsmeow's group info.
func (e *Engine) groupRecord(ctx context.Context, info *types.GroupInfo) map[string]any {
	participants := make([]any, 0, len(info.Participants))
	for _, member := range info.Participants {
		participants = append(participants, map[string]any{"id": e.contactID(ctx, member.JID, member.PhoneNumber), "role": roleOf(member)})
	}
	record := map[string]any{
		"id":                         info.JID.String(),
		"subject":                    info.Name,
		"description":                info.Topic,
		"membersCanAddNewMember":     info.MemberAddMode == types.GroupMemberAddModeAllMember,
		"membersCanSendMessages":     !info.IsAnnounce,
		"newMembersApprovalRequired": info.IsJoinApprovalRequired,
		"participants":               participants,
	}
	return record
}

func roleOf(member types.GroupParticipant) string {
	switch {
	case member.IsSuperAdmin:
		return "superadmin"
	case member.IsAdmin:
		return "admin"
	}
	return "participant"
}

func (e *Engine) createGroup(ctx context.Context, args rpcschema.CreateGroupRequest) (any, error) {
	if args.Name == "" {
		return nil, commandError(hostapi.Invalid, "createGroup needs name and participants")
	}
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	members := make([]types.JID, 0, len(args.Participants))
	for _, member := range args.Participants {
		jid, err := libraryJID(member.ID)
		if err != nil {
			return nil, commandError(hostapi.Invalid, "participants: %v", err)
		}
		members = append(members, jid)
	}
	info, err := client.CreateGroup(ctx, whatsmeow.ReqCreateGroup{Name: args.Name, Participants: members})
	if err != nil {
		return nil, groupFailure("create the group", err)
	}
	return e.groupRecord(ctx, info), nil
}

// groups: whatsmeow keeps no list, so every list asks the service (refresh or not).
func (e *Engine) groups(ctx context.Context, _ rpcschema.ParamsGroups) (any, error) {
	client, err := e.loggedIn()
	if err != nil {
		return nil, err
	}
	infos, err := client.GetJoinedGroups(ctx)
	if err != nil {
		return nil, groupFailure("list the groups", err)
	}
	records := make([]any, 0, len(infos))
	for _, info := range infos {
		records = append(records, e.groupRecord(ctx, info))
	}
	return records, nil
}

func (e *Engine) group(ctx context.Context, args rpcschema.ArgsGroupGet) (any, error) {
	client, jid, err := e.groupCall(args.ID, "group")
	if err != nil {
		return nil, err
	}
	info, err := client.GetGroupInfo(ctx, jid)
	if err != nil {
		return nil, groupFailure("read "+args.ID, err)
	}
	return e.groupRecord(ctx, info), nil
}

func (e *Engine) groupSettings(ctx context.Context, args rpcschema.ArgsGroupSettings) (any, error) {
	client, jid, err := e.groupCall(args.ID, "groupSettings")
	if err != nil {
		return nil, err
	}
	info, err := client.GetGroupInfo(ctx, jid)
	if err != nil {
		return nil, groupFailure("read "+args.ID, err)
	}
	return map[string]any{"infoAdminOnly": info.IsLocked, "messagesAdminOnly": info.IsAnnounce}, nil
}

func (e *Engine) leaveGroup(ctx context.Context, args rpcschema.ArgsGroupLeave) (any, error) {
	client, jid, err := e.groupCall(args.ID, "leaveGroup")
	if err != nil {
		return nil, err
	}
	if err := client.LeaveGroup(ctx, jid); err != nil {
		return nil, groupFailure("leave "+args.ID, err)
	}
	return nil, nil
}

func (e *Engine) setGroupSubject(ctx context.Context, args rpcschema.ArgsGroupSetSubject) (any, error) {
	client, jid, err := e.groupCall(args.ID, "setGroupSubject")
	if err != nil {
		return nil, err
	}
	if err := client.SetGroupName(ctx, jid, args.Subject); err != nil {
		return nil, groupFailure("change the subject of "+args.ID, err)
	}
	return nil, nil
}

func (e *Engine) setGroupDescription(ctx context.Context, args rpcschema.ArgsGroupSetDescription) (any, error) {
	client, jid, err := e.groupCall(args.ID, "setGroupDescription")
	if err != nil {
		return nil, err
	}
	if err := client.SetGroupTopic(ctx, jid, "", "", args.Description); err != nil {
		return nil, groupFailure("change the description of "+args.ID, err)
	}
	return nil, nil
}

func (e *Engine) setGroupSetting(ctx context.Context, args rpcschema.ArgsGroupSetSetting) (any, error) {
	client, jid, err := e.groupCall(args.ID, "setGroupSetting")
	if err != nil {
		return nil, err
	}
	if args.Setting == "infoAdminOnly" {
		err = client.SetGroupLocked(ctx, jid, args.AdminsOnly)
	} else {
		err = client.SetGroupAnnounce(ctx, jid, args.AdminsOnly)
	}
	if err != nil {
		return nil, groupFailure("change the settings of "+args.ID, err)
	}
	return nil, nil
}

func (e *Engine) groupInviteCode(ctx context.Context, args rpcschema.ArgsGroupInviteCode) (any, error) {
	return e.groupInviteLink(ctx, args.ID, "groupInviteCode", false)
}

func (e *Engine) revokeGroupInvite(ctx context.Context, args rpcschema.ArgsGroupRevokeInvite) (any, error) {
	return e.groupInviteLink(ctx, args.ID, "revokeGroupInvite", true)
}

// groupInviteCode and revokeGroupInvite answer the link, https://chat.whatsapp.com/<code>.
func (e *Engine) groupInviteLink(ctx context.Context, id, method string, reset bool) (any, error) {
	client, jid, err := e.groupCall(id, method)
	if err != nil {
		return nil, err
	}
	link, err := client.GetGroupInviteLink(ctx, jid, reset)
	if err != nil {
		return nil, groupFailure("read the invite of "+id, err)
	}
	return link, nil
}

func (e *Engine) groupJoinInfo(ctx context.Context, args rpcschema.JoinGroupRequest) (any, error) {
	client, _, err := e.groupCall("", "groupJoinInfo")
	if err != nil {
		return nil, err
	}
	info, err := client.GetGroupInfoFromLink(ctx, args.Code)
	if err != nil {
		return nil, groupFailure("read invite "+args.Code, err)
	}
	record := e.groupRecord(ctx, info)
	record["invite"] = whatsmeow.InviteLinkPrefix + strings.TrimPrefix(args.Code, whatsmeow.InviteLinkPrefix)
	return record, nil
}

func (e *Engine) joinGroup(ctx context.Context, args rpcschema.JoinGroupRequest) (any, error) {
	client, _, err := e.groupCall("", "joinGroup")
	if err != nil {
		return nil, err
	}
	jid, err := client.JoinGroupWithLink(ctx, args.Code)
	if err != nil {
		return nil, groupFailure("join by invite "+args.Code, err)
	}
	return jid.String(), nil
}

// updateGroupParticipants: the members the service changed, with the role each has now; a 400
// naming them when it refused every one (not on WhatsApp, already in, not a member ...).
func (e *Engine) updateGroupParticipants(ctx context.Context, args rpcschema.ParamsUpdateGroupParticipants) (any, error) {
	client, jid, err := e.groupCall(args.ID, "updateGroupParticipants")
	if err != nil {
		return nil, err
	}
	roles := map[string]string{"add": "participant", "remove": "left", "promote": "admin", "demote": "participant"}
	role, ok := roles[string(args.Action)]
	if !ok {
		return nil, commandError(hostapi.Invalid, "updateGroupParticipants: action is add, remove, promote or demote")
	}
	members := make([]types.JID, 0, len(args.Participants))
	for _, member := range args.Participants {
		memberJID, err := libraryJID(member)
		if err != nil {
			return nil, commandError(hostapi.Invalid, "participants: %v", err)
		}
		members = append(members, memberJID)
	}
	results, err := client.UpdateGroupParticipants(ctx, jid, members, whatsmeow.ParticipantChange(args.Action))
	if err != nil {
		return nil, groupFailure(string(args.Action)+" members of "+args.ID, err)
	}
	changed := []any{}
	refused := []string{}
	for _, result := range results {
		if result.Error != 0 {
			refused = append(refused, result.JID.String()+": "+strconv.Itoa(result.Error))
			continue
		}
		changed = append(changed, map[string]any{"id": e.contactID(ctx, result.JID, result.PhoneNumber), "role": role})
	}
	if len(changed) == 0 {
		return nil, commandError(hostapi.Invalid, "invalid request: body.participants: the service refused every member (%s)", strings.Join(refused, ", "))
	}
	return changed, nil
}
