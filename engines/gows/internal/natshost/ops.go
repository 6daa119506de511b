package natshost

import (
	"encoding/json"
	"regexp"
	"strings"
)

// adapter is how one op's command args become its engine method's params, and the method's result
// the command's reply, where they differ (engine-pod/src/dispatch/ does the same for the
// TypeScript engines). Which ops GOWS serves, their engine methods and the statuses they need are
// protocol's (operations.go); an op with no adapter is passed through as it is.
type adapter struct {
	// params: the method's params from the command's args; nil passes args as they are.
	params func(args map[string]any) (any, error)
	// result: the reply from the method's result; nil answers the result as it is.
	result func(result json.RawMessage) any
}

func param(name, field string) func(map[string]any) (any, error) {
	return func(args map[string]any) (any, error) { return map[string]any{name: args[field]}, nil }
}

func wrap(key string) func(json.RawMessage) any {
	return func(result json.RawMessage) any { return map[string]any{key: result} }
}

func success(json.RawMessage) any { return map[string]bool{"success": true} }

// adapters: the GOWS ops whose params or reply differ from the command's args or the method's
// result; TestAdaptersAreForServedOps keeps each one an op GOWS serves.
var adapters = map[string]adapter{
	"auth.qr":               {result: wrap("value")},
	"account.newMessageId":  {result: wrap("id")},
	"account.checkNumber":   {params: param("phone", "phone")},
	"profile.setStatus":     {params: param("status", "status"), result: success},
	"send.media":            {params: fileParams("file")},
	"send.contactVcard":     {params: vcardParams},
	"call.reject":           {result: success},
	"message.edit":          {result: success},
	"message.delete":        {result: success},
	"message.pin":           {result: success},
	"presence.set":          {result: success},
	"presence.subscribe":    {result: success},
	"group.list":            {params: fixed(map[string]any{"refresh": false})},
	"group.refresh":         {params: fixed(map[string]any{"refresh": true}), result: success},
	"group.leave":           {result: success},
	"group.join":            {result: wrap("id")},
	"group.setSubject":      {result: success},
	"group.setDescription":  {result: success},
	"group.setSetting":      {result: success},
	"group.participants":    {params: memberIDs},
	"group.picture":         {result: wrap("url")},
	"group.setPicture":      {params: fileParams("file"), result: success},
	"group.deletePicture":   {result: success},
	"profile.setName":       {params: param("name", "name"), result: success},
	"profile.setPicture":    {params: fileParams("file"), result: success},
	"profile.deletePicture": {result: success},
	"contacts.get":          {params: param("id", "contactId")},
	"contacts.about":        {params: param("id", "contactId"), result: wrap("about")},
	"contacts.picture":      {params: param("id", "contactId"), result: wrap("profilePictureURL")},
	"contacts.block":        {params: blocking(true), result: success},
	"contacts.unblock":      {params: blocking(false), result: success},
	"chat.archive":          {result: success},
	"chat.unread":           {result: success},
	"chat.delete":           {result: success},
	"chat.clearMessages":    {result: success},
	"contacts.update":       {params: contactName, result: success},
	"labels.update":         {params: labelChange},
	"labels.delete":         {result: success},
	"labels.setForChat":     {params: chatLabelIDs, result: success},
	"status.media":          {params: fileParams("file")},
	"status.delete":         {result: success},
	"channels.create":       {params: optionalFile("picture")},
	"channels.delete":       {result: success},
	"channels.follow":       {result: success},
	"channels.unfollow":     {result: success},
	"channels.mute":         {result: success},
	"channels.unmute":       {result: success},

	// the preview's image is a file inside `preview`, resolved as send.media's is
	"send.linkCustomPreview": {params: previewParams},
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
