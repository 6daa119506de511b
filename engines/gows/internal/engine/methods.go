package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
)

// method is one engine RPC method: the host's request params in, the answer out.
type method func(e *Engine, ctx context.Context, params json.RawMessage) (any, error)

// lifecycleMethods are the methods every engine has (engine-pod's Engine interface requires them):
// the connection's life, pairing and sending text.
var lifecycleMethods = map[string]method{
	"start": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return nil, e.start(ctx, params)
	},
	"stop":        func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { e.stop(); return nil, nil },
	"logout":      func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return nil, e.logout(ctx) },
	"qr":          func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.currentQR() },
	"requestCode": (*Engine).requestCode,
	"sendText":    (*Engine).sendText,
}

// optionalMethods are the engine's other methods, one per method protocol's OPERATIONS names
// (protocol/src/engine-operations.ts); `capabilities` answers their names. A GOWS operation of the
// engine catalog whose method is missing here fails TestEveryCatalogOperationHasItsMethod, named.
var optionalMethods = map[string]method{
	"rejectCall": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return nil, e.rejectCall(ctx, params)
	},
	"react":                 (*Engine).react,
	"sendSeen":              (*Engine).sendSeen,
	"setTyping":             (*Engine).setTyping,
	"sendLocation":          (*Engine).sendLocation,
	"sendMedia":             (*Engine).sendMedia,
	"sendLinkCustomPreview": (*Engine).sendLinkCustomPreview,
	"newMessageId":          func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.newMessageID() },
	"checkNumber":           (*Engine).checkNumber,
	"sendContactVcard":      (*Engine).sendContactVcard,
	"sendPoll":              (*Engine).sendPoll,
	"profile":               func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.profile(ctx) },
	"setProfileStatus":      (*Engine).setProfileStatus,
	"editMessage":           (*Engine).editMessage,
	"labels":                func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.labels(params) },
	"createLabel":           (*Engine).createLabel,
	"updateLabel":           (*Engine).updateLabel,
	"deleteLabel":           (*Engine).deleteLabel,
	"chatLabels":            func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.chatLabels(params) },
	"channels":              (*Engine).channels,
	"createChannel":         (*Engine).createChannel,
	"channel":               (*Engine).channel,
	"deleteChannel": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.changeChannel(ctx, params, "deleteChannel")
	},
	"followChannel": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.changeChannel(ctx, params, "followChannel")
	},
	"unfollowChannel": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.changeChannel(ctx, params, "unfollowChannel")
	},
	"muteChannel": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.changeChannel(ctx, params, "muteChannel")
	},
	"unmuteChannel": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.changeChannel(ctx, params, "unmuteChannel")
	},
	"channelPosts":        (*Engine).channelPosts,
	"setChatLabels":       (*Engine).setChatLabels,
	"labelChats":          func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.labelChats(params) },
	"pinMessage":          (*Engine).pinMessage,
	"star":                (*Engine).star,
	"sendButtonReply":     (*Engine).sendButtonReply,
	"sendPollVote":        (*Engine).sendPollVote,
	"forwardMessage":      (*Engine).forwardMessage,
	"deleteMessage":       (*Engine).deleteMessage,
	"setPresence":         (*Engine).setPresence,
	"subscribePresence":   (*Engine).subscribePresence,
	"presences":           func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.listPresences() },
	"sendEvent":           (*Engine).sendEvent,
	"presence":            (*Engine).chatPresence,
	"createGroup":         (*Engine).createGroup,
	"groups":              func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.groups(ctx) },
	"group":               (*Engine).group,
	"leaveGroup":          (*Engine).leaveGroup,
	"groupJoinInfo":       (*Engine).groupJoinInfo,
	"joinGroup":           (*Engine).joinGroup,
	"setGroupSubject":     (*Engine).setGroupSubject,
	"setGroupDescription": (*Engine).setGroupDescription,
	"groupSettings":       (*Engine).groupSettings,
	"setGroupSetting":     (*Engine).setGroupSetting,
	"groupInviteCode": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.groupInviteLink(ctx, params, false)
	},
	"revokeGroupInvite": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.groupInviteLink(ctx, params, true)
	},
	"updateGroupParticipants": (*Engine).updateGroupParticipants,
	"setProfileName":          (*Engine).setProfileName,
	"setProfilePicture":       (*Engine).setProfilePicture,
	"deleteProfilePicture": func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
		return e.deleteProfilePicture(ctx)
	},
	"groupPicture":       (*Engine).groupPicture,
	"setGroupPicture":    (*Engine).setGroupPicture,
	"deleteGroupPicture": (*Engine).deleteGroupPicture,
	"contacts":           func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) { return e.contacts(ctx) },
	"contact":            (*Engine).contact,
	"contactAbout":       (*Engine).contactAbout,
	"contactPicture":     (*Engine).contactPicture,
	"setBlocked":         (*Engine).setBlocked,
	"updateContact":      (*Engine).updateContact,
	"archiveChat":        (*Engine).archiveChat,
	"markChatUnread":     (*Engine).markChatUnread,
	"deleteChat":         (*Engine).deleteChat,
	"clearMessages":      (*Engine).clearMessages,
	"chatPicture":        (*Engine).chatPicture,
	"readChatMessages":   (*Engine).readChatMessages,
	"sendTextStatus":     (*Engine).sendTextStatus,
	"sendMediaStatus":    (*Engine).sendMediaStatus,
	"deleteStatus":       (*Engine).deleteStatus,
}

// capabilities: the optional methods' names, sorted, as the host's `capabilities` request reads them.
func capabilities() []string {
	return slices.Sorted(maps.Keys(optionalMethods))
}

// Handle answers one host request (method names = the Engine interface's).
func (e *Engine) Handle(ctx context.Context, name string, params json.RawMessage) (any, error) {
	if name == "capabilities" {
		return map[string]any{"methods": capabilities()}, nil
	}
	if m, ok := lifecycleMethods[name]; ok {
		return m(e, ctx, params)
	}
	if m, ok := optionalMethods[name]; ok {
		return m(e, ctx, params)
	}
	return nil, errUnknownMethod
}
