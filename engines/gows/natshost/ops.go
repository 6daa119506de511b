package natshost

import (
	"encoding/json"
	"regexp"
	"strings"
)

// op is how the engine host carries out one engine command on GOWS (engine-pod/src/dispatch/):
// the engine method it calls, how the command's args become the method's params, how its result
// becomes the reply, and the statuses it needs (engine-pod/src/command-rules.ts).
type op struct {
	method string
	// params: the method's params from the command's args; nil passes args as they are.
	params func(args map[string]any) (any, error)
	// result: the reply from the method's result; nil answers the result as it is.
	result func(result json.RawMessage) any
	needs  []string
}

var (
	working   = []string{"WORKING"}
	scanning  = []string{"SCAN_QR_CODE"}
	liveAtAll = []string{"STARTING", "SCAN_QR_CODE", "PASSKEY_REQUIRED", "PASSKEY_CONFIRMATION_REQUIRED", "WORKING"}
)

func param(name, field string) func(map[string]any) (any, error) {
	return func(args map[string]any) (any, error) { return map[string]any{name: args[field]}, nil }
}

func wrap(key string) func(json.RawMessage) any {
	return func(result json.RawMessage) any { return map[string]any{key: result} }
}

func success(json.RawMessage) any { return map[string]bool{"success": true} }

// ops: the GOWS operations of protocol's engine catalog. Another operation answers NOT_SUPPORTED;
// a new one gets one line here beside its engine method.
var ops = map[string]op{
	"auth.qr":               {method: "qr", result: wrap("value"), needs: scanning},
	"auth.requestCode":      {method: "requestCode", needs: scanning},
	"account.newMessageId":  {method: "newMessageId", result: wrap("id"), needs: liveAtAll},
	"account.checkNumber":   {method: "checkNumber", params: param("phone", "phone"), needs: working},
	"profile.get":           {method: "profile", needs: working},
	"profile.setStatus":     {method: "setProfileStatus", params: param("status", "status"), result: success, needs: working},
	"send.text":             {method: "sendText", needs: working},
	"send.media":            {method: "sendMedia", params: fileParams("file"), needs: working},
	"send.location":         {method: "sendLocation", needs: working},
	"send.poll":             {method: "sendPoll", needs: working},
	"send.event":            {method: "sendEvent", needs: working},
	"send.contactVcard":     {method: "sendContactVcard", params: vcardParams, needs: working},
	"message.react":         {method: "react", needs: working},
	"chat.seen":             {method: "sendSeen", needs: working},
	"chat.typing":           {method: "setTyping", needs: working},
	"call.reject":           {method: "rejectCall", result: success, needs: working},
	"message.edit":          {method: "editMessage", result: success, needs: working},
	"message.delete":        {method: "deleteMessage", result: success, needs: working},
	"message.pin":           {method: "pinMessage", result: success, needs: working},
	"message.star":          {method: "star", needs: working},
	"send.buttonReply":      {method: "sendButtonReply", needs: working},
	"send.pollVote":         {method: "sendPollVote", needs: working},
	"message.forward":       {method: "forwardMessage", needs: working},
	"presence.set":          {method: "setPresence", result: success, needs: working},
	"presence.subscribe":    {method: "subscribePresence", result: success, needs: working},
	"presence.list":         {method: "presences", needs: working},
	"presence.get":          {method: "presence", needs: working},
	"group.create":          {method: "createGroup", needs: working},
	"group.list":            {method: "groups", params: fixed(map[string]any{"refresh": false}), needs: working},
	"group.refresh":         {method: "groups", params: fixed(map[string]any{"refresh": true}), result: success, needs: working},
	"group.get":             {method: "group", needs: working},
	"group.leave":           {method: "leaveGroup", result: success, needs: working},
	"group.joinInfo":        {method: "groupJoinInfo", needs: working},
	"group.join":            {method: "joinGroup", result: wrap("id"), needs: working},
	"group.setSubject":      {method: "setGroupSubject", result: success, needs: working},
	"group.setDescription":  {method: "setGroupDescription", result: success, needs: working},
	"group.settings":        {method: "groupSettings", needs: working},
	"group.setSetting":      {method: "setGroupSetting", result: success, needs: working},
	"group.inviteCode":      {method: "groupInviteCode", needs: working},
	"group.revokeInvite":    {method: "revokeGroupInvite", needs: working},
	"group.participants":    {method: "updateGroupParticipants", params: memberIDs, needs: working},
	"group.picture":         {method: "groupPicture", result: wrap("url"), needs: working},
	"group.setPicture":      {method: "setGroupPicture", params: fileParams("file"), result: success, needs: working},
	"group.deletePicture":   {method: "deleteGroupPicture", result: success, needs: working},
	"profile.setName":       {method: "setProfileName", params: param("name", "name"), result: success, needs: working},
	"profile.setPicture":    {method: "setProfilePicture", params: fileParams("file"), result: success, needs: working},
	"profile.deletePicture": {method: "deleteProfilePicture", result: success, needs: working},
	"contacts.list":         {method: "contacts", needs: working},
	"contacts.get":          {method: "contact", params: param("id", "contactId"), needs: working},
	"contacts.about":        {method: "contactAbout", params: param("id", "contactId"), result: wrap("about"), needs: working},
	"contacts.picture":      {method: "contactPicture", params: param("id", "contactId"), result: wrap("profilePictureURL"), needs: working},
	"contacts.block":        {method: "setBlocked", params: blocking(true), result: success, needs: working},
	"contacts.unblock":      {method: "setBlocked", params: blocking(false), result: success, needs: working},
	"chat.archive":          {method: "archiveChat", result: success, needs: working},
	"chat.unread":           {method: "markChatUnread", result: success, needs: working},
	"chat.delete":           {method: "deleteChat", result: success, needs: working},
	"chat.clearMessages":    {method: "clearMessages", result: success, needs: working},
	"chat.picture":          {method: "chatPicture", needs: working},
	"chat.read":             {method: "readChatMessages", needs: working},
	"contacts.update":       {method: "updateContact", params: contactName, result: success, needs: working},
	"labels.list":           {method: "labels", needs: working},
	"labels.create":         {method: "createLabel", needs: working},
	"labels.update":         {method: "updateLabel", params: labelChange, needs: working},
	"labels.delete":         {method: "deleteLabel", result: success, needs: working},
	"labels.ofChat":         {method: "chatLabels", needs: working},
	"labels.setForChat":     {method: "setChatLabels", params: chatLabelIDs, result: success, needs: working},
	"labels.chats":          {method: "labelChats", needs: working},
	"status.text":           {method: "sendTextStatus", needs: working},
	"status.media":          {method: "sendMediaStatus", params: fileParams("file"), needs: working},
	"status.delete":         {method: "deleteStatus", result: success, needs: working},
	"channels.list":         {method: "channels", needs: working},
	"channels.create":       {method: "createChannel", params: optionalFile("picture"), needs: working},
	"channels.get":          {method: "channel", needs: working},
	"channels.delete":       {method: "deleteChannel", result: success, needs: working},
	"channels.follow":       {method: "followChannel", result: success, needs: working},
	"channels.unfollow":     {method: "unfollowChannel", result: success, needs: working},
	"channels.mute":         {method: "muteChannel", result: success, needs: working},
	"channels.unmute":       {method: "unmuteChannel", result: success, needs: working},
	"channels.preview":      {method: "channelPosts", needs: working},

	// the preview's image is a file inside `preview`, resolved as send.media's is
	"send.linkCustomPreview": {method: "sendLinkCustomPreview", params: previewParams, needs: working},
}

// optionalFile: fileParams for a file the command may leave out (a channel's picture).
func optionalFile(field string) func(map[string]any) (any, error) {
	return func(args map[string]any) (any, error) {
		if args[field] == nil {
			return args, nil
		}
		return fileParams(field)(args)
	}
}

// contactName: a contact's new name as updateContact's params.
func contactName(args map[string]any) (any, error) {
	return map[string]any{"id": args["contactId"], "firstName": args["firstName"], "lastName": args["lastName"]}, nil
}

// blocking: a block or unblock as setBlocked's params.
func blocking(blocked bool) func(map[string]any) (any, error) {
	return func(args map[string]any) (any, error) {
		return map[string]any{"id": args["contactId"], "blocked": blocked}, nil
	}
}

func fixed(params map[string]any) func(map[string]any) (any, error) {
	return func(map[string]any) (any, error) { return params, nil }
}

// memberIDs: the members of a participants change as ids, as engine-pod's dispatch sends them.
func memberIDs(args map[string]any) (any, error) {
	params := map[string]any{"id": args["id"], "action": args["action"]}
	members, _ := args["participants"].([]any)
	ids := make([]any, 0, len(members))
	for _, member := range members {
		if m, ok := member.(map[string]any); ok {
			ids = append(ids, m["id"])
		}
	}
	params["participants"] = ids
	return params, nil
}

// opNames: how a refusal names an op ("engine GOWS does not support <this>"), protocol's OP_NAMES.
var opNames = map[string]string{
	"auth.passkey.challenge": "passkey pairing", "auth.passkey.submit": "passkey pairing", "auth.passkey.confirmation": "passkey pairing",
	"auth.passkey.confirm": "passkey pairing", "send.linkCustomPreview": "custom link previews", "send.buttons": "buttons",
	"send.list": "lists", "send.pollVote": "poll votes", "send.buttonReply": "button replies", "message.forward": "forwarding",
	"message.star": "starring", "sandbox.simulate": "simulate", "group.delete": "deleting groups",
}

func opName(name string) string {
	if known, ok := opNames[name]; ok {
		return known
	}
	return name
}

// vcardParams: contact cards as vCards (engine-pod/src/chatting/vcard.ts): the one given, or a
// vCard 3.0 built from the card's fields the way the messaging service's apps write them.
func vcardParams(args map[string]any) (any, error) {
	params := map[string]any{}
	for key, value := range args {
		if key != "contacts" {
			params[key] = value
		}
	}
	contacts, _ := args["contacts"].([]any)
	vcards := make([]string, 0, len(contacts))
	for _, item := range contacts {
		contact, _ := item.(map[string]any)
		vcards = append(vcards, vcardOf(contact))
	}
	params["vcards"] = vcards
	return params, nil
}

var (
	vcardEscape = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `;`, `\;`, "\r\n", `\n`, "\n", `\n`)
	nonDigits   = regexp.MustCompile(`\D`)
)

func vcardOf(contact map[string]any) string {
	if vcard, ok := contact["vcard"].(string); ok {
		return vcard
	}
	phone, _ := contact["phoneNumber"].(string)
	fullName, _ := contact["fullName"].(string)
	waid, ok := contact["whatsappId"].(string)
	if !ok {
		waid = nonDigits.ReplaceAllString(phone, "")
	}
	lines := []string{"BEGIN:VCARD", "VERSION:3.0", "FN:" + vcardEscape.Replace(fullName)}
	if org, _ := contact["organization"].(string); org != "" {
		lines = append(lines, "ORG:"+vcardEscape.Replace(org)+";")
	}
	lines = append(lines, "TEL;type=CELL;type=VOICE;waid="+waid+":"+phone, "END:VCARD")
	return strings.Join(lines, "\n")
}
