package engine

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

/*
 * Status updates (stories): messages to status@broadcast, which whatsmeow sends as it sends to a
 * group (the content once under the account's sender key, the key to every device of the viewers
 * and the account's own). whatsmeow picks the viewers itself: the account's status privacy from
 * the service, applied to the contacts of its contact store that have a name. A status with
 * `contacts` is sent with those in the store's place for that one send (GetAllContacts in
 * store.go reads them from the send's context), so the privacy's "all but" list still applies,
 * and an "only share with" list replaces them, as it does on the phone.
 */

const statusChat = "status@broadcast"

type statusViewersKey struct{}

// statusViewers: the viewers a status send names in place of the contact store's contacts.
func statusViewers(ctx context.Context) ([]types.JID, bool) {
	viewers, ok := ctx.Value(statusViewersKey{}).([]types.JID)
	return viewers, ok
}

// statusTarget: the client and status@broadcast, and the send's context carrying `contacts` when
// they are given (null: whatsmeow's own choice).
func (e *Engine) statusTarget(ctx context.Context, contacts []string) (*whatsmeow.Client, types.JID, context.Context, error) {
	client, jid, err := e.target(statusChat)
	if err != nil || contacts == nil {
		return client, jid, ctx, err
	}
	viewers := make([]types.JID, 0, len(contacts))
	for i, id := range contacts {
		viewer, err := libraryJID(id)
		if err != nil {
			return nil, types.EmptyJID, nil, commandError(hostapi.Invalid, "contacts[%d]: %v", i, err)
		}
		viewers = append(viewers, viewer)
	}
	return client, jid, context.WithValue(ctx, statusViewersKey{}, viewers), nil
}

// argb: `#rrggbb` (opaque) or `#rrggbbaa` as the ARGB number WhatsApp stores; WhatsApp's green when left out.
func argb(color string) (uint32, error) {
	if color == "" {
		color = "#38b42f"
	}
	hex := strings.TrimPrefix(color, "#")
	if len(hex) == 6 {
		hex = "ff" + hex
	} else if len(hex) == 8 {
		hex = hex[6:] + hex[:6]
	}
	value, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || len(hex) != 8 {
		return 0, commandError(hostapi.Invalid, "backgroundColor must be \"#rrggbb\" or \"#rrggbbaa\", got %q", color)
	}
	return uint32(value), nil
}

const white = 0xffffffff

// sendTextStatus: white text on the colour in the font, as the apps write one.
func (e *Engine) sendTextStatus(ctx context.Context, args rpcschema.TextStatus) (any, error) {
	if args.Text == "" {
		return nil, commandError(hostapi.Invalid, "sendTextStatus needs text")
	}
	background, err := argb(value(args.BackgroundColor))
	if err != nil {
		return nil, err
	}
	m := &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{
		Text: proto.String(args.Text), BackgroundArgb: proto.Uint32(background), TextArgb: proto.Uint32(white), Font: waE2E.ExtendedTextMessage_FontType(int32(value(args.Font))).Enum(),
	}}
	return e.sendStatus(ctx, args.ID, args.Contacts, m, nil)
}

// sendMediaStatus: an image or video with its caption, or a voice note on its background colour.
func (e *Engine) sendMediaStatus(ctx context.Context, args rpcschema.ParamsSendMediaStatus) (any, error) {
	if args.Kind != "image" && args.Kind != "voice" && args.Kind != "video" {
		return nil, commandError(hostapi.Invalid, "sendMediaStatus needs kind (image, voice or video) and file")
	}
	data, err := base64.StdEncoding.DecodeString(args.File.Data)
	if err != nil {
		return nil, commandError(hostapi.Invalid, "file.data must be base64: %v", err)
	}
	client, _, err := e.target(statusChat)
	if err != nil {
		return nil, err
	}
	m, err := uploadedMessage(ctx, client, string(args.Kind), args.File, data, args.Caption, false, nil)
	if err != nil {
		return nil, err
	}
	if args.Kind == "voice" {
		background, err := argb(value(args.BackgroundColor))
		if err != nil {
			return nil, err
		}
		m.AudioMessage.BackgroundArgb = proto.Uint32(background)
	}
	filename := ""
	if args.File.Filename != nil {
		filename = *args.File.Filename
	}
	return e.sendStatus(ctx, args.ID, args.Contacts, m, e.saveMedia(ctx, args.File.Mimetype, filename, data))
}

func (e *Engine) sendStatus(ctx context.Context, id *string, contacts []string, m *waE2E.Message, media any) (any, error) {
	client, jid, sendCtx, err := e.statusTarget(ctx, contacts)
	if err != nil {
		return nil, err
	}
	rec, err := e.sendWith(sendCtx, client, jid, statusChat, m, id, media)
	if err != nil {
		return nil, err
	}
	e.statuses.remember(rec)
	return rec, nil
}

// deleteStatus: a revoke on status@broadcast to the viewers, then `message.revoked` (whatsmeow
// reports nothing of its own sends), with the status as it was sent when this process sent it.
func (e *Engine) deleteStatus(ctx context.Context, args rpcschema.DeleteStatusRequest) (any, error) {
	if args.ID == "" {
		return nil, commandError(hostapi.Invalid, "deleteStatus needs id")
	}
	id := strings.TrimPrefix(args.ID, "true_"+statusChat+"_")
	client, jid, sendCtx, err := e.statusTarget(ctx, args.Contacts)
	if err != nil {
		return nil, err
	}
	m := client.BuildRevoke(jid, types.EmptyJID, id)
	resp, err := client.SendMessage(sendCtx, jid, m)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not delete the status %s: %v", id, err)
	}
	info := types.MessageInfo{
		MessageSource: types.MessageSource{Chat: jid, Sender: client.Store.ID.ToNonAD(), IsFromMe: true},
		ID:            resp.ID,
		Timestamp:     resp.Timestamp,
	}
	after := e.record(info, m, address{chatID: statusChat}, e.me(), "api", ackServer)
	e.emit("message.revoked", map[string]any{"after": after, "revokedMessageId": id, "before": e.statuses.find(messageID(true, statusChat, id, ""))})
	return nil, nil
}

// sentStatuses: the records of the last statuses this process sent, for `before` of their deletion.
type sentStatuses struct {
	mu    sync.Mutex
	byID  map[string]map[string]any
	order []string
}

const keptStatuses = 100

func (s *sentStatuses) remember(rec map[string]any) {
	id, _ := rec["id"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]map[string]any{}
	}
	s.byID[id] = rec
	s.order = append(s.order, id)
	if len(s.order) > keptStatuses {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
}

// find: the record, or nil (an untyped nil, so that `before` is null).
func (s *sentStatuses) find(id string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.byID[id]; ok {
		return rec
	}
	return nil
}
