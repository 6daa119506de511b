package engine

import (
	"context"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// recentMessages are the contents of the last messages this process received or sent, by
// message id: what forwardMessage re-sends. In memory only: a restarted engine forwards none of
// the messages from before it started.
type recentMessages struct{ kept keptByID[*waE2E.Message] }

const recentKept = 256

func (r *recentMessages) remember(id string, m *waE2E.Message) { r.kept.put(id, m, recentKept) }

func (r *recentMessages) message(id string) (*waE2E.Message, bool) { return r.kept.get(id) }

// forwardMessage re-sends a recent message's content to a chat, as NOWEB does (Baileys'
// generateForwardMessageContent): its context replaced by the forwarding one, ForwardingScore one
// more than the original's and IsForwarded, except for the account's own message, which goes out
// as it was (as the apps do). A message this process has not kept answers NOT_FOUND.
func (e *Engine) forwardMessage(ctx context.Context, args rpcschema.ArgsMessageForward) (any, error) {
	if args.ChatID == "" {
		return nil, commandError(hostapi.Invalid, "forwardMessage needs chatId and messageId")
	}
	ref, ok := parseMessageRef(args.MessageID)
	if !ok {
		return nil, commandError(hostapi.Invalid, "messageId must be {fromMe}_{chatId}_{id}[_{participant}]")
	}
	client, chat, err := e.target(args.ChatID)
	if err != nil {
		return nil, err
	}
	original, ok := e.recent.message(ref.id)
	if !ok {
		return nil, commandError(hostapi.NotFound, "GOWS knows no message %s: it forwards the last %d messages it received or sent since it started", args.MessageID, recentKept)
	}
	return e.send(ctx, client, chat, args.ChatID, forwardContent(original, ref.fromMe), args.ID)
}

// forwardContent is the original's content with the forwarding context on its one message field.
func forwardContent(original *waE2E.Message, fromMe bool) *waE2E.Message {
	m := proto.Clone(original).(*waE2E.Message)
	if m.Conversation != nil {
		m.ExtendedTextMessage = &waE2E.ExtendedTextMessage{Text: m.Conversation}
		m.Conversation = nil
	}
	reflected := m.ProtoReflect()
	reflected.Range(func(field protoreflect.FieldDescriptor, value protoreflect.Value) bool {
		if field.Kind() != protoreflect.MessageKind || field.IsList() || field.IsMap() {
			return true
		}
		content := value.Message()
		contextField := content.Descriptor().Fields().ByName("contextInfo")
		if contextField == nil || contextField.Message() == nil || contextField.Message().FullName() != (&waE2E.ContextInfo{}).ProtoReflect().Descriptor().FullName() {
			return true
		}
		score := uint32(0)
		if content.Has(contextField) {
			score = content.Get(contextField).Message().Interface().(*waE2E.ContextInfo).GetForwardingScore()
		}
		if !fromMe {
			score++
		}
		forwarding := &waE2E.ContextInfo{}
		if score > 0 {
			forwarding.ForwardingScore = proto.Uint32(score)
			forwarding.IsForwarded = proto.Bool(true)
		}
		content.Set(contextField, protoreflect.ValueOfMessage(forwarding.ProtoReflect()))
		return false
	})
	return m
}
