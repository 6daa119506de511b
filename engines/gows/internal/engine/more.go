package engine

import (
	"context"
	"fmt"
	"strings"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// newMessageID is an id in the service's own form, as whatsmeow makes them for its sends.
func (e *Engine) newMessageID(context.Context) (any, error) {
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	return client.GenerateMessageID(), nil
}

// checkNumber: whether a phone number (digits) is on WhatsApp, and its chat id.
func (e *Engine) checkNumber(ctx context.Context, args rpcschema.ParamsCheckNumber) (any, error) {
	if args.Phone == "" {
		return nil, commandError(hostapi.Invalid, "checkNumber needs phone")
	}
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	if !client.IsLoggedIn() {
		return nil, commandError(hostapi.WrongStatus, "the session is not logged in")
	}
	found, err := client.IsOnWhatsApp(ctx, []string{"+" + strings.TrimPrefix(args.Phone, "+")})
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not check %s: %v", args.Phone, err)
	}
	for _, result := range found {
		if result.IsIn {
			return map[string]any{"numberExists": true, "chatId": result.JID.User + "@c.us"}, nil
		}
	}
	return map[string]any{"numberExists": false}, nil
}

// sendContactVcard: one card is a contact message; several are a contacts array, as the phone sends them.
func (e *Engine) sendContactVcard(ctx context.Context, args rpcschema.ParamsSendContactVcard) (any, error) {
	if args.ChatID == "" || len(args.Vcards) == 0 {
		return nil, commandError(hostapi.Invalid, "sendContactVcard needs chatId and vcards")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	var contextInfo *waE2E.ContextInfo
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		contextInfo = replyContext(*args.ReplyTo, chat, *client.Store.ID)
	}
	contacts := make([]*waE2E.ContactMessage, 0, len(args.Vcards))
	for _, card := range args.Vcards {
		contacts = append(contacts, &waE2E.ContactMessage{DisplayName: proto.String(displayName(card)), Vcard: proto.String(card)})
	}
	msg := &waE2E.Message{}
	if len(contacts) == 1 {
		contacts[0].ContextInfo = contextInfo
		msg.ContactMessage = contacts[0]
	} else {
		msg.ContactsArrayMessage = &waE2E.ContactsArrayMessage{DisplayName: proto.String(fmt.Sprintf("%d contacts", len(contacts))), Contacts: contacts, ContextInfo: contextInfo}
	}
	return e.send(ctx, client, chat, args.ChatID, msg, args.ID)
}

// displayName is a vCard's FN, or its N, or "Contact".
func displayName(card string) string {
	for _, line := range strings.Split(card, "\n") {
		line = strings.TrimRight(line, "\r")
		if name, ok := strings.CutPrefix(line, "FN:"); ok && name != "" {
			return name
		}
		if strings.HasPrefix(line, "FN;") {
			if _, name, ok := strings.Cut(line, ":"); ok && name != "" {
				return name
			}
		}
	}
	return "Contact"
}

// sendPoll: a poll with its secret (whatsmeow keeps it, to read the votes); one answer or several.
func (e *Engine) sendPoll(ctx context.Context, args rpcschema.ArgsSendPoll) (any, error) {
	if args.ChatID == "" || args.Poll.Name == "" || len(args.Poll.Options) < 2 {
		return nil, commandError(hostapi.Invalid, "sendPoll needs chatId, poll.name and at least two poll.options")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	selectable := 1
	if value(args.Poll.MultipleAnswers) {
		selectable = 0
	}
	msg := client.BuildPollCreation(args.Poll.Name, args.Poll.Options, selectable)
	rec, err := e.send(ctx, client, chat, args.ChatID, msg, args.ID)
	if err == nil {
		e.polls.remember(bareMessageID(rec["id"]), args.Poll.Options)
	}
	return rec, err
}

func bareMessageID(id any) string {
	ref, _ := parseMessageRef(fmt.Sprint(id))
	return ref.id
}
