package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Acks of the interface (protocol ACKS).
const (
	ackError   = -1
	ackPending = 0
	ackServer  = 1
	ackDevice  = 2
	ackRead    = 3
	ackPlayed  = 4
)

var ackNames = map[int]string{ackError: "ERROR", ackPending: "PENDING", ackServer: "SERVER", ackDevice: "DEVICE", ackRead: "READ", ackPlayed: "PLAYED"}

// messageID is protocol's messageId: {fromMe}_{chatId}_{id}[_{participant}].
func messageID(fromMe bool, chatID, id, participant string) string {
	out := fmt.Sprintf("%t_%s_%s", fromMe, chatID, id)
	if participant != "" {
		out += "_" + participant
	}
	return out
}

// libraryJID is whatsmeow's jid for a chat id of the interface (`@c.us` is `@s.whatsapp.net`).
func libraryJID(chatID string) (types.JID, error) {
	if user, ok := strings.CutSuffix(chatID, "@c.us"); ok {
		return types.NewJID(user, types.DefaultUserServer), nil
	}
	if !strings.Contains(chatID, "@") {
		return types.NewJID(strings.TrimPrefix(chatID, "+"), types.DefaultUserServer), nil
	}
	return types.ParseJID(chatID)
}

// contactID is the interface's id of a user: `<number>@c.us` whenever a phone number is known
// (the jid, its alternative address on the stanza, or the LID map), else the `@lid` as it is.
func (e *Engine) contactID(ctx context.Context, jid, alt types.JID) string {
	switch jid.Server {
	case types.DefaultUserServer:
		return jid.User + "@c.us"
	case types.HiddenUserServer:
		if alt.Server == types.DefaultUserServer {
			return alt.User + "@c.us"
		}
		if pn, err := e.store.GetPNForLID(ctx, jid); err == nil && !pn.IsEmpty() {
			return pn.User + "@c.us"
		}
		return jid.User + "@lid"
	}
	return jid.ToNonAD().String()
}

func messageBody(m *waE2E.Message) string {
	if m == nil {
		return ""
	}
	switch {
	case m.Conversation != nil:
		return m.GetConversation()
	case m.ExtendedTextMessage != nil:
		return m.GetExtendedTextMessage().GetText()
	case m.ImageMessage != nil:
		return m.GetImageMessage().GetCaption()
	case m.VideoMessage != nil:
		return m.GetVideoMessage().GetCaption()
	case m.DocumentMessage != nil:
		return m.GetDocumentMessage().GetCaption()
	case m.PollCreationMessage != nil:
		return m.GetPollCreationMessage().GetName()
	case m.PollCreationMessageV3 != nil:
		return m.GetPollCreationMessageV3().GetName()
	case m.ContactMessage != nil:
		return m.GetContactMessage().GetVcard()
	case m.ButtonsResponseMessage != nil:
		return m.GetButtonsResponseMessage().GetSelectedDisplayText()
	}
	return ""
}

func hasMedia(m *waE2E.Message) bool {
	return m != nil && (m.ImageMessage != nil || m.VideoMessage != nil || m.PtvMessage != nil || m.AudioMessage != nil || m.DocumentMessage != nil || m.StickerMessage != nil)
}

func vCards(m *waE2E.Message) []string {
	out := []string{}
	if m == nil {
		return out
	}
	if v := m.GetContactMessage().GetVcard(); v != "" {
		out = append(out, v)
	}
	for _, c := range m.GetContactsArrayMessage().GetContacts() {
		if c.GetVcard() != "" {
			out = append(out, c.GetVcard())
		}
	}
	return out
}

func contextInfo(m *waE2E.Message) *waE2E.ContextInfo {
	switch {
	case m == nil:
		return nil
	case m.ExtendedTextMessage != nil:
		return m.GetExtendedTextMessage().GetContextInfo()
	case m.ImageMessage != nil:
		return m.GetImageMessage().GetContextInfo()
	case m.VideoMessage != nil:
		return m.GetVideoMessage().GetContextInfo()
	case m.DocumentMessage != nil:
		return m.GetDocumentMessage().GetContextInfo()
	case m.AudioMessage != nil:
		return m.GetAudioMessage().GetContextInfo()
	case m.StickerMessage != nil:
		return m.GetStickerMessage().GetContextInfo()
	}
	return nil
}

// locationOf is the record's `location` (spec 2.5): coordinates as strings, as NOWEB gives them.
func locationOf(m *waE2E.Message) map[string]any {
	if m == nil || (m.LocationMessage == nil && m.LiveLocationMessage == nil) {
		return nil
	}
	if fixed := m.GetLocationMessage(); fixed != nil {
		out := map[string]any{
			"latitude": strconv.FormatFloat(fixed.GetDegreesLatitude(), 'f', -1, 64), "longitude": strconv.FormatFloat(fixed.GetDegreesLongitude(), 'f', -1, 64),
			"live": false,
		}
		var description []string
		if name := fixed.GetName(); name != "" {
			out["name"] = name
			description = append(description, name)
		}
		if addr := fixed.GetAddress(); addr != "" {
			out["address"] = addr
			description = append(description, addr)
		}
		if url := fixed.GetURL(); url != "" {
			out["url"] = url
		}
		if len(description) > 0 {
			out["description"] = strings.Join(description, "\n")
		}
		return out
	}
	live := m.GetLiveLocationMessage()
	return map[string]any{
		"latitude": strconv.FormatFloat(live.GetDegreesLatitude(), 'f', -1, 64), "longitude": strconv.FormatFloat(live.GetDegreesLongitude(), 'f', -1, 64),
		"live": true,
	}
}

// protoData is a message as plain JSON for `_data` (bytes base64, 64-bit numbers as numbers).
func protoData(m proto.Message) map[string]any {
	out := map[string]any{}
	if m == nil {
		return out
	}
	raw, err := protojson.MarshalOptions{UseProtoNames: false}.Marshal(m)
	if err == nil {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

type address struct {
	chatID      string
	participant string // group sender; "" in direct chats
}

// record is spec 2.5's message record, as NOWEB's toMessageRecord builds it.
func (e *Engine) record(info types.MessageInfo, m *waE2E.Message, addr address, me map[string]any, source string, ack int) map[string]any {
	meID, _ := me["id"].(string)
	fromMe := info.IsFromMe
	participant := ""
	if !fromMe {
		participant = addr.participant
	}
	var replyTo any
	if ctx := contextInfo(m); ctx.GetStanzaID() != "" {
		reply := map[string]any{"id": ctx.GetStanzaID(), "body": messageBody(ctx.GetQuotedMessage()), "hasMedia": hasMedia(ctx.GetQuotedMessage())}
		if p := ctx.GetParticipant(); p != "" {
			reply["participant"] = strings.Replace(p, "@s.whatsapp.net", "@c.us", 1)
		}
		replyTo = reply
	}
	from, to := addr.chatID, meID
	if fromMe {
		from, to = meID, addr.chatID
	}
	var participantField any
	if addr.participant != "" {
		participantField = addr.participant
	}
	key := map[string]any{"remoteJid": info.Chat.String(), "fromMe": fromMe, "id": info.ID}
	if info.IsGroup {
		key["participant"] = info.Sender.String()
		if !info.SenderAlt.IsEmpty() {
			key["participantAlt"] = info.SenderAlt.String()
		}
	} else if fromMe && !info.RecipientAlt.IsEmpty() {
		key["remoteJidAlt"] = info.RecipientAlt.String()
	} else if !fromMe && !info.SenderAlt.IsEmpty() {
		key["remoteJidAlt"] = info.SenderAlt.String()
	}
	data := map[string]any{"key": key, "message": protoData(m), "messageTimestamp": info.Timestamp.Unix()}
	if info.PushName != "" {
		data["pushName"] = info.PushName
	}
	if info.AddressingMode != "" {
		data["addressingMode"] = string(info.AddressingMode)
	}
	rec := map[string]any{
		"id":          messageID(fromMe, addr.chatID, info.ID, participant),
		"timestamp":   info.Timestamp.Unix(),
		"from":        from,
		"fromMe":      fromMe,
		"source":      source,
		"to":          to,
		"participant": participantField,
		"body":        messageBody(m),
		"hasMedia":    hasMedia(m),
		"media":       nil,
		"ack":         ack,
		"ackName":     ackNames[ack],
		"vCards":      vCards(m),
		"replyTo":     replyTo,
		"_data":       data,
	}
	if loc := locationOf(m); loc != nil {
		rec["location"] = loc
	}
	return rec
}

func (e *Engine) addressOf(ctx context.Context, src types.MessageSource, me map[string]any) address {
	if src.IsGroup {
		participant, _ := me["id"].(string)
		if !src.IsFromMe {
			participant = e.contactID(ctx, src.Sender, src.SenderAlt)
		}
		return address{chatID: src.Chat.String(), participant: participant}
	}
	alt := src.SenderAlt
	if src.IsFromMe {
		alt = src.RecipientAlt
	}
	return address{chatID: e.contactID(ctx, src.Chat, alt)}
}

// message turns an inbound (or sent from the phone) message into `message` / `message.any`.
func (e *Engine) message(evt *events.Message) {
	me := e.me()
	if me == nil || evt.Info.Chat.Server == types.BroadcastServer {
		return
	}
	m := evt.Message
	if m == nil {
		return
	}
	ctx := e.lifetime()
	addr := e.addressOf(ctx, evt.Info.MessageSource, me)
	ack := ackDevice
	if evt.Info.IsFromMe {
		ack = ackServer
	}
	switch {
	case m.ProtocolMessage != nil:
		e.protocolMessage(evt, m.ProtocolMessage, addr, me)
		return
	case m.ReactionMessage != nil:
		e.reaction(ctx, evt, m.ReactionMessage, addr, me)
		return
	case m.PollUpdateMessage != nil:
		e.vote(ctx, evt, m.PollUpdateMessage, addr, me)
		return
	case m.SenderKeyDistributionMessage != nil && messageBody(m) == "" && !hasMedia(m):
		return
	}
	if options := pollCreationOptions(m); options != nil {
		e.polls.remember(evt.Info.ID, options)
	}
	e.recent.remember(evt.Info.ID, m)
	rec := e.record(evt.Info, m, addr, me, "app", ack)
	// Downloaded before the events go out, so that their `media.url` serves the file (as NOWEB).
	if hasMedia(m) {
		if client := e.client0(); client != nil {
			rec["media"] = e.receivedMedia(ctx, client, m)
		}
	}
	if !evt.Info.IsFromMe {
		e.unread.add(addr.chatID, evt.Info)
		e.emit("message", rec)
	}
	e.emit("message.any", rec)
}

// protocolMessage: edits (`message.edited`) and revokes (`message.revoked`), as NOWEB emits them.
func (e *Engine) protocolMessage(evt *events.Message, pm *waE2E.ProtocolMessage, addr address, me map[string]any) {
	target := pm.GetKey().GetID()
	if target == "" {
		return
	}
	action := e.record(evt.Info, evt.Message, addr, me, "app", ackDevice)
	switch pm.GetType() {
	case waE2E.ProtocolMessage_MESSAGE_EDIT:
		action["body"] = messageBody(pm.GetEditedMessage())
		action["editedMessageId"] = target
		e.emit("message.edited", action)
	case waE2E.ProtocolMessage_REVOKE:
		e.emit("message.revoked", map[string]any{"after": action, "revokedMessageId": target, "before": nil})
	}
}

// reaction: `message.reaction` pointing at the message reacted to. The key is the reactor's: in
// a direct chat its fromMe is the reactor's own, so another's reaction to "their" message (fromMe
// false) is one to ours.
func (e *Engine) reaction(ctx context.Context, evt *events.Message, r *waE2E.ReactionMessage, addr address, me map[string]any) {
	key := r.GetKey()
	targetFromMe := key.GetFromMe()
	if !evt.Info.IsFromMe && !evt.Info.IsGroup {
		targetFromMe = !key.GetFromMe()
	}
	targetParticipant := ""
	if evt.Info.IsGroup {
		if p := key.GetParticipant(); p != "" {
			jid, _ := types.ParseJID(p)
			own := e.client0()
			if own != nil && own.Store.ID != nil && (jid.User == own.Store.ID.User || jid.User == own.Store.LID.User) {
				targetFromMe = true
			} else if !targetFromMe {
				targetParticipant = e.contactID(ctx, jid, types.EmptyJID)
			}
		}
	}
	rec := e.record(evt.Info, evt.Message, addr, me, "app", ackDevice)
	e.emit("message.reaction", map[string]any{
		"id": rec["id"], "from": rec["from"], "fromMe": rec["fromMe"], "participant": rec["participant"], "to": rec["to"],
		"timestamp": rec["timestamp"], "source": "app",
		"reaction": map[string]any{"text": r.GetText(), "messageId": messageID(targetFromMe, addr.chatID, key.GetID(), targetParticipant)},
	})
}

func (e *Engine) receipt(evt *events.Receipt) {
	var ack int
	switch evt.Type {
	case types.ReceiptTypeDelivered:
		ack = ackDevice
	case types.ReceiptTypeRead:
		ack = ackRead
	case types.ReceiptTypePlayed:
		ack = ackPlayed
	default:
		return
	}
	me := e.me()
	if me == nil {
		return
	}
	meID, _ := me["id"].(string)
	ctx := e.lifetime()
	if evt.IsGroup {
		reader := e.contactID(ctx, evt.Sender, evt.SenderAlt)
		for _, id := range evt.MessageIDs {
			e.emit("message.ack", map[string]any{
				"id": messageID(true, evt.Chat.String(), id, "") + "_" + reader, "from": evt.Chat.String(), "to": meID,
				"participant": reader, "fromMe": true, "ack": ack, "ackName": ackNames[ack],
			})
		}
		return
	}
	chatID := e.contactID(ctx, evt.Chat, evt.SenderAlt)
	for _, id := range evt.MessageIDs {
		e.emit("message.ack", map[string]any{
			"id": messageID(true, chatID, id, ""), "from": chatID, "to": meID,
			"participant": nil, "fromMe": true, "ack": ack, "ackName": ackNames[ack],
		})
	}
}

type sendArgs struct {
	ChatID  string  `json:"chatId"`
	Text    string  `json:"text"`
	ReplyTo *string `json:"reply_to"`
	ID      *string `json:"id"`
}

// replyContext is the quoted message by its full id ({fromMe}_{chatId}_{id}[_{participant}]).
func replyContext(replyTo string, chat types.JID, own types.JID) *waE2E.ContextInfo {
	parts := strings.SplitN(replyTo, "_", 4)
	if len(parts) < 3 || (parts[0] != "true" && parts[0] != "false") {
		return &waE2E.ContextInfo{StanzaID: proto.String(replyTo)}
	}
	author := own.ToNonAD()
	if parts[0] == "false" {
		who := parts[1]
		if len(parts) == 4 {
			who = parts[3]
		}
		if jid, err := libraryJID(who); err == nil {
			author = jid
		}
	}
	ctx := &waE2E.ContextInfo{StanzaID: proto.String(parts[2]), Participant: proto.String(author.String())}
	if quotedChat, err := libraryJID(parts[1]); err == nil && quotedChat != chat {
		ctx.RemoteJID = proto.String(quotedChat.String())
	}
	return ctx
}

func (e *Engine) sendText(ctx context.Context, args rpcschema.ArgsSendText) (any, error) {
	if args.ChatID == "" || args.Text == "" {
		return nil, commandError(hostapi.Invalid, "sendText needs chatId and text")
	}
	m := &waE2E.Message{Conversation: proto.String(args.Text)}
	client, jid, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	if args.ReplyTo != nil && *args.ReplyTo != "" {
		m = &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String(args.Text), ContextInfo: replyContext(*args.ReplyTo, jid, *client.Store.ID)}}
	}
	return e.send(ctx, client, jid, args.ChatID, m, args.ID)
}

func (e *Engine) target(chatID string) (*whatsmeow.Client, types.JID, error) {
	client, err := e.requireClient()
	if err != nil {
		return nil, types.EmptyJID, err
	}
	if client.Store.ID == nil || !client.IsLoggedIn() {
		return nil, types.EmptyJID, commandError(hostapi.WrongStatus, "the session is not logged in")
	}
	jid, err := libraryJID(chatID)
	if err != nil {
		return nil, types.EmptyJID, commandError(hostapi.Invalid, "chatId: %v", err)
	}
	return client, jid, nil
}

// send is NOWEB's Outgoing.send: the record (PENDING, source api) and message.any first, then
// the stanza, then message.ack SERVER (or ERROR when it could not be sent).
func (e *Engine) send(ctx context.Context, client *whatsmeow.Client, jid types.JID, chatID string, m *waE2E.Message, id *string) (map[string]any, error) {
	return e.sendWith(ctx, client, jid, chatID, m, id, nil)
}

// sendWith is send with the record's `media` (the kept copy of a file the message carries).
func (e *Engine) sendWith(ctx context.Context, client *whatsmeow.Client, jid types.JID, chatID string, m *waE2E.Message, id *string, media any) (map[string]any, error) {
	me := e.me()
	msgID := client.GenerateMessageID()
	if id != nil && *id != "" {
		msgID = *id
	}
	info := types.MessageInfo{
		MessageSource: types.MessageSource{Chat: jid, Sender: client.Store.ID.ToNonAD(), IsFromMe: true, IsGroup: jid.Server == types.GroupServer},
		ID:            msgID,
		Timestamp:     time.Now(),
	}
	addr := address{chatID: chatID}
	if info.IsGroup {
		addr.participant, _ = me["id"].(string)
	}
	rec := e.record(info, m, addr, me, "api", ackPending)
	if media != nil {
		rec["media"] = media
	}
	e.emit("message.any", rec)
	ackEvent := func(ack int) {
		e.emit("message.ack", map[string]any{
			"id": rec["id"], "from": chatID, "to": me["id"], "participant": nil, "fromMe": true, "ack": ack, "ackName": ackNames[ack],
		})
	}
	if _, err := client.SendMessage(ctx, jid, m, whatsmeow.SendRequestExtra{ID: msgID}); err != nil {
		ackEvent(ackError)
		return nil, commandError(hostapi.EngineError, "GOWS could not send to %s: %v", chatID, err)
	}
	ackEvent(ackServer)
	e.recent.remember(msgID, m)
	return rec, nil
}
