package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// method is one engine RPC method: its params in (a stdio request's JSON, or the typed params
// the nats pod built), the answer out.
type method func(e *Engine, ctx context.Context, params any) (any, error)

// typed is a method whose params are P, a type of rpcschema (generated from protocol's schemas):
// JSON is decoded into P here, once, for every method; params already of type P are used as they are.
func typed[P any](name string, f func(e *Engine, ctx context.Context, params P) (any, error)) method {
	return func(e *Engine, ctx context.Context, params any) (any, error) {
		switch given := params.(type) {
		case P:
			return f(e, ctx, given)
		case *P:
			return f(e, ctx, *given)
		case json.RawMessage:
			var decoded P
			if len(given) > 0 && string(given) != "null" {
				if err := rpcschema.Decode(given, &decoded); err != nil {
					return nil, commandError(hostapi.Invalid, "%s: %v", name, err)
				}
			}
			return f(e, ctx, decoded)
		case nil:
			var zero P
			return f(e, ctx, zero)
		}
		return nil, fmt.Errorf("%s: params of type %T, not %T", name, params, *new(P))
	}
}

// value is what an optional param holds, its zero value when it was left out.
func value[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// bare is a method without params.
func bare(f func(e *Engine, ctx context.Context) (any, error)) method {
	return func(e *Engine, ctx context.Context, _ any) (any, error) { return f(e, ctx) }
}

// nothing answers null for a method whose result is only whether it failed.
func nothing[P any](f func(e *Engine, ctx context.Context, params P) error) func(e *Engine, ctx context.Context, params P) (any, error) {
	return func(e *Engine, ctx context.Context, params P) (any, error) { return nil, f(e, ctx, params) }
}

// channelChange: a change of one channel by its id, named by its method.
func channelChange(name string) method {
	return typed(name, func(e *Engine, ctx context.Context, args rpcschema.ArgsChannelsDelete) (any, error) {
		return e.changeChannel(ctx, args.ID, name)
	})
}

// lifecycleMethods are the methods every engine has (engine-pod's Engine interface requires them):
// the connection's life, pairing and sending text.
var lifecycleMethods = map[string]method{
	"start":       typed("start", nothing((*Engine).start)),
	"stop":        bare(func(e *Engine, ctx context.Context) (any, error) { e.stop(); return nil, nil }),
	"logout":      bare(func(e *Engine, ctx context.Context) (any, error) { return nil, e.logout(ctx) }),
	"qr":          bare(func(e *Engine, ctx context.Context) (any, error) { return e.currentQR() }),
	"requestCode": typed("requestCode", (*Engine).requestCode),
	"sendText":    typed("sendText", (*Engine).sendText),
}

// optionalMethods are the engine's other methods, one per method protocol's OPERATIONS names
// (protocol/src/engine-operations.ts); `capabilities` answers their names. A GOWS operation of the
// engine catalog whose method is missing here fails TestEveryCatalogOperationHasItsMethod, named.
var optionalMethods = map[string]method{
	"rejectCall":            typed("rejectCall", nothing((*Engine).rejectCall)),
	"react":                 typed("react", (*Engine).react),
	"sendSeen":              typed("sendSeen", (*Engine).sendSeen),
	"setTyping":             typed("setTyping", (*Engine).setTyping),
	"sendLocation":          typed("sendLocation", (*Engine).sendLocation),
	"sendMedia":             typed("sendMedia", (*Engine).sendMedia),
	"sendLinkCustomPreview": typed("sendLinkCustomPreview", (*Engine).sendLinkCustomPreview),
	"newMessageId":          bare(func(e *Engine, ctx context.Context) (any, error) { return e.newMessageID() }),
	"checkNumber":           typed("checkNumber", (*Engine).checkNumber),
	"sendContactVcard":      typed("sendContactVcard", (*Engine).sendContactVcard),
	"sendPoll":              typed("sendPoll", (*Engine).sendPoll),
	"profile":               bare((*Engine).profile),
	"setProfileStatus":      typed("setProfileStatus", (*Engine).setProfileStatus),
	"editMessage":           typed("editMessage", (*Engine).editMessage),
	"labels":                bare(func(e *Engine, ctx context.Context) (any, error) { return e.labels() }),
	"createLabel":           typed("createLabel", (*Engine).createLabel),
	"updateLabel":           typed("updateLabel", (*Engine).updateLabel),
	"deleteLabel":           typed("deleteLabel", (*Engine).deleteLabel),
	"chatLabels":            typed("chatLabels", (*Engine).chatLabels),
	"channels":              typed("channels", (*Engine).channels),
	"createChannel":         typed("createChannel", (*Engine).createChannel),
	"channel":               typed("channel", (*Engine).channel),
	"deleteChannel":         channelChange("deleteChannel"),
	"followChannel":         channelChange("followChannel"),
	"unfollowChannel":       channelChange("unfollowChannel"),
	"muteChannel":           channelChange("muteChannel"),
	"unmuteChannel":         channelChange("unmuteChannel"),
	"channelPosts":          typed("channelPosts", (*Engine).channelPosts),
	"setChatLabels":         typed("setChatLabels", (*Engine).setChatLabels),
	"labelChats":            typed("labelChats", (*Engine).labelChats),
	"pinMessage":            typed("pinMessage", (*Engine).pinMessage),
	"star":                  typed("star", (*Engine).star),
	"sendButtonReply":       typed("sendButtonReply", (*Engine).sendButtonReply),
	"sendPollVote":          typed("sendPollVote", (*Engine).sendPollVote),
	"forwardMessage":        typed("forwardMessage", (*Engine).forwardMessage),
	"deleteMessage":         typed("deleteMessage", (*Engine).deleteMessage),
	"setPresence":           typed("setPresence", (*Engine).setPresence),
	"subscribePresence":     typed("subscribePresence", (*Engine).subscribePresence),
	"presences":             bare(func(e *Engine, ctx context.Context) (any, error) { return e.listPresences() }),
	"sendEvent":             typed("sendEvent", (*Engine).sendEvent),
	"presence":              typed("presence", (*Engine).chatPresence),
	"createGroup":           typed("createGroup", (*Engine).createGroup),
	"groups":                typed("groups", func(e *Engine, ctx context.Context, _ rpcschema.ParamsGroups) (any, error) { return e.groups(ctx) }),
	"group":                 typed("group", (*Engine).group),
	"leaveGroup":            typed("leaveGroup", (*Engine).leaveGroup),
	"groupJoinInfo":         typed("groupJoinInfo", (*Engine).groupJoinInfo),
	"joinGroup":             typed("joinGroup", (*Engine).joinGroup),
	"setGroupSubject":       typed("setGroupSubject", (*Engine).setGroupSubject),
	"setGroupDescription":   typed("setGroupDescription", (*Engine).setGroupDescription),
	"groupSettings":         typed("groupSettings", (*Engine).groupSettings),
	"setGroupSetting":       typed("setGroupSetting", (*Engine).setGroupSetting),
	"groupInviteCode": typed("groupInviteCode", func(e *Engine, ctx context.Context, args rpcschema.ArgsGroupInviteCode) (any, error) {
		return e.groupInviteLink(ctx, args.ID, "groupInviteCode", false)
	}),
	"revokeGroupInvite": typed("revokeGroupInvite", func(e *Engine, ctx context.Context, args rpcschema.ArgsGroupRevokeInvite) (any, error) {
		return e.groupInviteLink(ctx, args.ID, "revokeGroupInvite", true)
	}),
	"updateGroupParticipants": typed("updateGroupParticipants", (*Engine).updateGroupParticipants),
	"setProfileName":          typed("setProfileName", (*Engine).setProfileName),
	"setProfilePicture":       typed("setProfilePicture", (*Engine).setProfilePicture),
	"deleteProfilePicture":    bare((*Engine).deleteProfilePicture),
	"groupPicture":            typed("groupPicture", (*Engine).groupPicture),
	"setGroupPicture":         typed("setGroupPicture", (*Engine).setGroupPicture),
	"deleteGroupPicture":      typed("deleteGroupPicture", (*Engine).deleteGroupPicture),
	"contacts":                bare((*Engine).contacts),
	"contact":                 typed("contact", (*Engine).contact),
	"contactAbout":            typed("contactAbout", (*Engine).contactAbout),
	"contactPicture":          typed("contactPicture", (*Engine).contactPicture),
	"setBlocked":              typed("setBlocked", (*Engine).setBlocked),
	"updateContact":           typed("updateContact", (*Engine).updateContact),
	"archiveChat":             typed("archiveChat", (*Engine).archiveChat),
	"markChatUnread":          typed("markChatUnread", (*Engine).markChatUnread),
	"deleteChat":              typed("deleteChat", (*Engine).deleteChat),
	"clearMessages":           typed("clearMessages", (*Engine).clearMessages),
	"chatPicture":             typed("chatPicture", (*Engine).chatPicture),
	"readChatMessages":        typed("readChatMessages", (*Engine).readChatMessages),
	"sendTextStatus":          typed("sendTextStatus", (*Engine).sendTextStatus),
	"sendMediaStatus":         typed("sendMediaStatus", (*Engine).sendMediaStatus),
	"deleteStatus":            typed("deleteStatus", (*Engine).deleteStatus),
}

// capabilities: the optional methods' names, sorted, as the host's `capabilities` request reads them.
func capabilities() []string {
	return slices.Sorted(maps.Keys(optionalMethods))
}

// Handle answers one host request (method names = the Engine interface's). params is the
// request's JSON (json.RawMessage) from the stdio RPC, or the method's rpcschema type in process.
func (e *Engine) Handle(ctx context.Context, name string, params any) (any, error) {
	if name == "capabilities" {
		return rpcschema.Capabilities{Methods: capabilities()}, nil
	}
	if m, ok := lifecycleMethods[name]; ok {
		return m(e, ctx, params)
	}
	if m, ok := optionalMethods[name]; ok {
		return m(e, ctx, params)
	}
	return nil, errUnknownMethod
}
