package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// pollOptions are the options of polls this process saw or sent, by message id: a vote names
// options by their SHA-256 only.
type pollOptions struct{ kept keptByID[[]string] }

const pollsKept = 500

func (p *pollOptions) remember(id string, options []string) { p.kept.put(id, options, pollsKept) }

func (p *pollOptions) options(id string) ([]string, bool) { return p.kept.get(id) }

func pollCreationOptions(m *waE2E.Message) []string {
	var options []*waE2E.PollCreationMessage_Option
	switch {
	case m.PollCreationMessage != nil:
		options = m.PollCreationMessage.GetOptions()
	case m.PollCreationMessageV2 != nil:
		options = m.PollCreationMessageV2.GetOptions()
	case m.PollCreationMessageV3 != nil:
		options = m.PollCreationMessageV3.GetOptions()
	default:
		return nil
	}
	names := make([]string, 0, len(options))
	for _, option := range options {
		names = append(names, option.GetOptionName())
	}
	return names
}

// vote: `poll.vote` with the options' names, or `poll.vote.failed` when the poll or its secret is unknown here.
func (e *Engine) vote(ctx context.Context, evt *events.Message, update *waE2E.PollUpdateMessage, addr address, me map[string]any) {
	rec := e.record(evt.Info, evt.Message, addr, me, "app", ackDevice)
	pollKey := update.GetPollCreationMessageKey()
	pollFromMe := pollKey.GetFromMe()
	if !evt.Info.IsFromMe && !evt.Info.IsGroup {
		// The key is the voter's: their fromMe false in a direct chat is a poll of ours.
		pollFromMe = !pollKey.GetFromMe()
	}
	pollParticipant := ""
	if evt.Info.IsGroup && !pollFromMe {
		pollParticipant, _ = rec["participant"].(string)
	}
	meID, _ := me["id"].(string)
	poll := map[string]any{"id": messageID(pollFromMe, addr.chatID, pollKey.GetID(), pollParticipant), "to": meID, "from": addr.chatID, "fromMe": pollFromMe}
	if pollFromMe {
		poll["to"], poll["from"] = addr.chatID, meID
	}
	timestamp := rec["timestamp"]
	if ms := update.GetSenderTimestampMS(); ms > 0 {
		timestamp = float64(ms) / 1000
	}
	voteFields := map[string]any{"id": rec["id"], "to": rec["to"], "from": rec["from"], "fromMe": rec["fromMe"], "selectedOptions": []string{}, "timestamp": timestamp}
	options, known := e.polls.options(pollKey.GetID())
	var selected []string
	if client := e.client0(); client != nil && known {
		if decrypted, err := client.DecryptPollVote(ctx, evt); err == nil {
			selected = []string{}
			for _, hash := range decrypted.GetSelectedOptions() {
				for _, name := range options {
					if sum := sha256.Sum256([]byte(name)); string(sum[:]) == string(hash) {
						selected = append(selected, name)
					}
				}
			}
		} else {
			e.log.Warn("could not read a poll vote", "err", err.Error())
		}
	}
	if selected == nil {
		e.emit("poll.vote.failed", map[string]any{"vote": voteFields, "poll": poll})
		return
	}
	voteFields["selectedOptions"] = selected
	e.emit("poll.vote", map[string]any{"vote": voteFields, "poll": poll})
}

// sendPollVote votes on a poll this process saw or sent (whatsmeow's BuildPollVote: the vote
// encrypted with the poll's message secret, which whatsmeow keeps), as NOWEB does: a poll not
// known here is NOT_FOUND; the options must be the poll's.
func (e *Engine) sendPollVote(ctx context.Context, args rpcschema.ArgsSendPollVote) (any, error) {
	if args.ChatID == "" || args.Votes == nil {
		return nil, commandError(hostapi.Invalid, "sendPollVote needs chatId, pollMessageId and votes")
	}
	ref, client, chat, err := e.messageTarget(args.PollMessageID)
	if err != nil {
		return nil, err
	}
	options, known := e.polls.options(ref.id)
	if !known {
		return nil, commandError(hostapi.NotFound, "GOWS knows no poll %s: it can vote on polls it received or sent since it started (a vote is encrypted with a secret the poll message carries)", args.PollMessageID)
	}
	for _, vote := range args.Votes {
		if !slices.Contains(options, vote) {
			reason := fmt.Sprintf("%q is not an option of the poll", vote)
			// As NOWEB's invalidField: the 400's field and reason.
			issues := []map[string]string{{"path": "body.votes", "reason": reason}}
			return nil, &CommandError{Code: hostapi.Invalid, Message: "invalid request: body.votes: " + reason, Details: map[string]any{"issues": issues}}
		}
	}
	pollInfo := &types.MessageInfo{
		MessageSource: types.MessageSource{Chat: chat, Sender: e.senderOf(ref, chat, *client.Store.ID), IsFromMe: ref.fromMe, IsGroup: chat.Server == types.GroupServer},
		ID:            ref.id,
	}
	msg, err := client.BuildPollVote(ctx, pollInfo, args.Votes)
	if err != nil {
		return nil, commandError(hostapi.NotFound, "GOWS has no secret of the poll %s to encrypt the vote with: %v", args.PollMessageID, err)
	}
	resp, err := client.SendMessage(ctx, chat, msg)
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not vote in %s: %v", ref.chatID, err)
	}
	meID, _ := e.me()["id"].(string)
	poll := map[string]any{"id": args.PollMessageID, "to": meID, "from": ref.chatID, "fromMe": ref.fromMe}
	if ref.fromMe {
		poll["to"], poll["from"] = ref.chatID, meID
	}
	payload := map[string]any{
		"vote": map[string]any{
			"id": messageID(true, args.ChatID, resp.ID, ""), "to": args.ChatID, "from": meID, "fromMe": true,
			"selectedOptions": args.Votes, "timestamp": resp.Timestamp.Unix(),
		},
		"poll": poll,
	}
	e.emit("poll.vote", payload)
	return payload, nil
}
