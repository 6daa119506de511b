package natshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// adapter is how one op's command args become its engine method's params, and the method's result
// the command's reply, where they differ (engine-pod/src/dispatch/ does the same for the
// TypeScript engines). Which ops GOWS serves, their engine methods and the statuses they need are
// protocol's (operations.go); an op with no params adapter passes its args' JSON on, which the
// engine's method table decodes into the method's rpcschema type, once.
type adapter struct {
	// params: the method's params (its rpcschema type) from the command's args; nil passes args as they are.
	params func(ctx context.Context, args json.RawMessage) (any, error)
	// result: the reply from the method's result; nil answers the result as it is.
	result func(result any) any
}

// from: params made of the op's args decoded into A, their rpcschema type.
func from[A any](build func(ctx context.Context, args A) (any, error)) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args A
		if len(raw) > 0 {
			if err := rpcschema.Decode(raw, &args); err != nil {
				return nil, invalidArgs(err)
			}
		}
		return build(ctx, args)
	}
}

// invalidArgs names the field of the args whose JSON does not fit its type (rpcschema.Decode).
func invalidArgs(err error) *CommandError {
	field, reason := "args", err.Error()
	var mismatch *rpcschema.FieldError
	if errors.As(err, &mismatch) {
		if mismatch.Field != "" {
			field += "." + mismatch.Field
		}
		reason = mismatch.Reason
	}
	return &CommandError{Code: hostapi.Invalid, Message: fmt.Sprintf("invalid command: %s: %s", field, reason), Details: issues(field, reason)}
}

func wrap(key string) func(any) any {
	return func(result any) any { return map[string]any{key: result} }
}

func success(any) any { return map[string]bool{"success": true} }

// text: a field protocol normalizes (a phone number, a contact id), so its schema has no type.
func text(value any) string {
	s, _ := value.(string)
	return s
}

// adapters: the GOWS ops whose params or reply differ from the command's args or the method's
// result; TestAdaptersAreForServedOps keeps each one an op GOWS serves.
var adapters = map[string]adapter{
	"auth.qr":              {result: wrap("value")},
	"account.newMessageId": {result: wrap("id")},
	"account.checkNumber": {params: from(func(_ context.Context, args rpcschema.ArgsAccountCheckNumber) (any, error) {
		return rpcschema.ParamsCheckNumber{Phone: text(args.Phone)}, nil
	})},
	"profile.setStatus":  {result: success},
	"send.media":         {params: withFile[rpcschema.ParamsSendMedia]("file")},
	"send.contactVcard":  {params: from(vcardParams)},
	"call.reject":        {result: success},
	"message.edit":       {result: success},
	"message.delete":     {result: success},
	"message.pin":        {result: success},
	"presence.set":       {result: success},
	"presence.subscribe": {result: success},
	"group.list": {params: func(context.Context, json.RawMessage) (any, error) {
		return rpcschema.ParamsGroups{Refresh: false}, nil
	}},
	"group.refresh": {params: func(context.Context, json.RawMessage) (any, error) {
		return rpcschema.ParamsGroups{Refresh: true}, nil
	}, result: success},
	"group.leave":          {result: success},
	"group.join":           {result: wrap("id")},
	"group.setSubject":     {result: success},
	"group.setDescription": {result: success},
	"group.setSetting":     {result: success},
	"group.participants":   {params: from(memberIDs)},
	"group.picture":        {result: wrap("url")},
	"group.setPicture": {params: withFile[rpcschema.ParamsSetGroupPicture]("file"),
		result: success},
	"group.deletePicture": {result: success},
	"profile.setName":     {result: success},
	"profile.setPicture": {params: from(func(ctx context.Context, args rpcschema.ProfilePictureRequest) (any, error) {
		return resolveFile(ctx, args.File, "file")
	}), result: success},
	"profile.deletePicture": {result: success},
	"contacts.get":          {params: from(contactRef[rpcschema.ArgsContactsGet])},
	"contacts.about":        {params: from(contactRef[rpcschema.ArgsContactsAbout]), result: wrap("about")},
	"contacts.picture":      {params: from(contactRef[rpcschema.ArgsContactsPicture]), result: wrap("profilePictureURL")},
	"contacts.block":        {params: from(blocking[rpcschema.ArgsContactsBlock](true)), result: success},
	"contacts.unblock":      {params: from(blocking[rpcschema.ArgsContactsUnblock](false)), result: success},
	"chat.archive":          {result: success},
	"chat.unread":           {result: success},
	"chat.delete":           {result: success},
	"chat.clearMessages":    {result: success},
	"contacts.update": {params: from(func(_ context.Context, args rpcschema.ArgsContactsUpdate) (any, error) {
		return rpcschema.ParamsUpdateContact{ID: text(args.ContactID), FirstName: args.FirstName, LastName: args.LastName}, nil
	}), result: success},
	"labels.update":     {params: from(labelChange)},
	"labels.delete":     {result: success},
	"labels.setForChat": {params: from(chatLabelIDs), result: success},
	"status.media":      {params: withFile[rpcschema.ParamsSendMediaStatus]("file")},
	"status.delete":     {result: success},
	"channels.create":   {params: from(channelToCreate)},
	"channels.get": {params: from(func(_ context.Context, args rpcschema.ArgsChannelsGet) (any, error) {
		return rpcschema.ParamsChannel{By: rpcschema.ParamsChannelBy(args.Channel.By), Key: args.Channel.Key}, nil
	})},
	"channels.delete":   {result: success},
	"channels.follow":   {result: success},
	"channels.unfollow": {result: success},
	"channels.mute":     {result: success},
	"channels.unmute":   {result: success},

	// the preview's image is a file inside `preview`, resolved as send.media's is
	"send.linkCustomPreview": {params: previewParams},
}

// contactArgs: the args of the contact ops, which name the contact `contactId`.
type contactArgs interface {
	rpcschema.ArgsContactsGet | rpcschema.ArgsContactsAbout | rpcschema.ArgsContactsPicture | rpcschema.ArgsContactsBlock | rpcschema.ArgsContactsUnblock
}

func contactID[A contactArgs](args A) string {
	switch a := any(args).(type) {
	case rpcschema.ArgsContactsGet:
		return text(a.ContactID)
	case rpcschema.ArgsContactsAbout:
		return text(a.ContactID)
	case rpcschema.ArgsContactsPicture:
		return text(a.ContactID)
	case rpcschema.ArgsContactsBlock:
		return text(a.ContactID)
	case rpcschema.ArgsContactsUnblock:
		return text(a.ContactID)
	}
	return ""
}

// contactRef: the contact lookups' params, the contact by `id`.
func contactRef[A contactArgs](_ context.Context, args A) (any, error) {
	return rpcschema.ContactIDParams{ID: contactID(args)}, nil
}

// blocking: a block or unblock as setBlocked's params.
func blocking[A contactArgs](blocked bool) func(context.Context, A) (any, error) {
	return func(_ context.Context, args A) (any, error) {
		return rpcschema.ParamsSetBlocked{ID: contactID(args), Blocked: blocked}, nil
	}
}

// memberIDs: the members of a participants change as ids, as engine-pod's dispatch sends them.
func memberIDs(_ context.Context, args rpcschema.ArgsGroupParticipants) (any, error) {
	ids := make([]string, 0, len(args.Participants))
	for _, member := range args.Participants {
		ids = append(ids, member.ID)
	}
	return rpcschema.ParamsUpdateGroupParticipants{ID: args.ID, Action: rpcschema.ParamsUpdateGroupParticipantsAction(args.Action), Participants: ids}, nil
}

// channelToCreate: channels.create's args with the picture, when given, resolved as a send's file.
func channelToCreate(ctx context.Context, args rpcschema.CreateChannelRequest) (any, error) {
	params := rpcschema.ParamsCreateChannel{Name: args.Name, Description: args.Description}
	if args.Picture != nil {
		picture, err := resolveFile(ctx, *args.Picture, "picture")
		if err != nil {
			return nil, err
		}
		params.Picture = &picture
	}
	return params, nil
}

// vcardParams: contact cards as vCards (engine-pod/src/chatting/vcard.ts): the one given, or a
// vCard 3.0 built from the card's fields the way the messaging service's apps write them.
func vcardParams(_ context.Context, args rpcschema.ArgsSendContactVcard) (any, error) {
	vcards := make([]string, 0, len(args.Contacts))
	for _, contact := range args.Contacts {
		vcards = append(vcards, vcardOf(contact))
	}
	return rpcschema.ParamsSendContactVcard{ChatID: args.ChatID, ID: args.ID, ReplyTo: args.ReplyTo, Vcards: vcards}, nil
}

var (
	vcardEscape = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `;`, `\;`, "\r\n", `\n`, "\n", `\n`)
	nonDigits   = regexp.MustCompile(`\D`)
)

func vcardOf(contact rpcschema.ContactCard) string {
	if contact.Vcard != nil {
		return *contact.Vcard
	}
	phone, fullName := deref(contact.PhoneNumber), deref(contact.FullName)
	waid := nonDigits.ReplaceAllString(phone, "")
	if contact.WhatsappID != nil {
		waid = *contact.WhatsappID
	}
	lines := []string{"BEGIN:VCARD", "VERSION:3.0", "FN:" + vcardEscape.Replace(fullName)}
	if org := deref(contact.Organization); org != "" {
		lines = append(lines, "ORG:"+vcardEscape.Replace(org)+";")
	}
	lines = append(lines, "TEL;type=CELL;type=VOICE;waid="+waid+":"+phone, "END:VCARD")
	return strings.Join(lines, "\n")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
