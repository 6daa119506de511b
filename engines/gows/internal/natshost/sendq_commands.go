package natshost

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/pacing"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The host commands of paced sending (`host.sendQueue.*`, protocol/src/commands.ts): the gateway
// hands a paced send to the session's engine pod, which owns the queue in cluster mode.

type submitArgs struct {
	Route   string       `json:"route"`
	Command queuedAction `json:"command"`
	WaitMs  int          `json:"waitMs"`
}

// publicSend is a record as the API shows it (QueuedSend): without its command, seq and token.
func publicSend(record sendRecord) rpcschema.QueuedSend {
	return rpcschema.QueuedSend{ID: record.ID, Session: record.Session, ChatID: record.ChatID, Route: record.Route,
		State: rpcschema.QueuedSendState(record.State), QueuedAt: int(record.QueuedAt)}
}

// submit queues a send and waits up to waitMs for it to go out (SendQueueSubmitResult). The send
// goes with its own id, or one the engine makes now (as GET new-message-id: a session that is not
// working answers WRONG_STATUS as an unpaced send does). A full queue answers QUEUE_FULL with
// when its next send is due.
func (q *sendQueue) submit(ctx context.Context, raw json.RawMessage, admit func(op string, args json.RawMessage) error) (any, error) {
	var args submitArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, invalidField("args", "must be {route, command: {op, args}, waitMs}")
	}
	if args.Route == "" || len(args.Route) > 200 {
		return nil, invalidField("args.route", "must be the route the send came to, 1 to 200 characters")
	}
	if args.WaitMs < 0 || args.WaitMs > 60_000 {
		return nil, invalidField("args.waitMs", "must be 0 to 60000 milliseconds")
	}
	var target map[string]json.RawMessage
	if json.Unmarshal(args.Command.Args, &target) != nil || target == nil {
		return nil, invalidField("args.command.args", "must be an object")
	}
	if err := admit(args.Command.Op, args.Command.Args); err != nil {
		return nil, err
	}
	var chatID, id string
	if json.Unmarshal(target["chatId"], &chatID) != nil || chatID == "" {
		return nil, invalidField("args.command.args.chatId", "is required: a paced send goes to one chat")
	}
	if raw, given := target["id"]; given && string(raw) != "null" {
		if json.Unmarshal(raw, &id) != nil || id == "" {
			return nil, invalidField("args.command.args.id", "must be a message id (a string) or absent")
		}
	} else {
		made, err := q.execute(ctx, "account.newMessageId", json.RawMessage("{}"))
		if err != nil {
			return nil, err
		}
		if id, err = messageIDOf(made); err != nil {
			return nil, err
		}
		target["id"], _ = json.Marshal(id)
		args.Command.Args, _ = json.Marshal(target)
	}
	config := q.currentConfig()
	record := sendRecord{ID: id, Session: q.session, ChatID: chatID, Route: args.Route, Command: args.Command, QueuedAt: q.now().UnixMilli()}
	outcome := q.wait(id)
	// Counted and added under the store's order: two submits at once cannot both take the last place.
	if count := q.store.count(); count >= config.MaxQueued {
		q.unwait(id, outcome)
		return nil, &CommandError{Code: hostapi.QueueFull, Message: fmt.Sprintf("the send queue of session '%s' is full (%d sends)", q.session, config.MaxQueued),
			Details: map[string]any{"session": q.session, "limit": config.MaxQueued, "retryAfterSeconds": q.secondsToNextSend(config)}}
	}
	record, added, err := q.store.add(ctx, record)
	if err != nil {
		q.unwait(id, outcome)
		return nil, err
	}
	if !added {
		q.unwait(id, outcome)
		return nil, &CommandError{Code: hostapi.Conflict, Message: fmt.Sprintf("session '%s' already has a queued send with id '%s'", q.session, id),
			Details: issues("args.command.args.id", "is the id of a send waiting in the queue: choose another one")}
	}
	q.poke()
	position := max(0, q.store.position(id))
	timer := time.NewTimer(time.Duration(args.WaitMs) * time.Millisecond)
	defer timer.Stop()
	select {
	case sent, open := <-outcome:
		if !open {
			break // the lane stopped: the send stays queued for the next holder
		}
		if sent.err != nil {
			return nil, sent.err
		}
		return rpcschema.SendQueueSubmitResult{Outcome: rpcschema.SendQueueSubmitResultOutcomeSent, Result: sent.result}, nil
	case <-timer.C:
		q.unwait(id, outcome)
	case <-q.done:
		q.unwait(id, outcome)
	}
	shown := publicSend(record)
	queued := rpcschema.QueuedSendAccepted{ID: shown.ID, Session: shown.Session, ChatID: shown.ChatID, Route: shown.Route,
		State: rpcschema.QueuedSendAcceptedState(shown.State), QueuedAt: shown.QueuedAt, Position: position}
	return rpcschema.SendQueueSubmitResult{Outcome: rpcschema.SendQueueSubmitResultOutcomeQueued, Queued: &queued}, nil
}

func (q *sendQueue) secondsToNextSend(config pacing.Config) int {
	now := q.now()
	next, ok := pacing.PickNext(config, q.pacingState(now), q.store.withState(stateQueued), chatOf)
	at := now
	if ok {
		at = next.Slot.At
	}
	return max(1, int(math.Ceil(float64(at.Sub(now))/float64(time.Second))))
}

// list is one page of the waiting sends, oldest first (SendQueuePage).
func (q *sendQueue) list(raw json.RawMessage) (any, error) {
	page := struct {
		Limit  *int `json:"limit"`
		Offset *int `json:"offset"`
	}{}
	if json.Unmarshal(raw, &page) != nil || page.Limit == nil || *page.Limit < 1 || *page.Limit > 1000 {
		return nil, invalidField("args.limit", "must be a whole number from 1 to 1000")
	}
	if page.Offset == nil || *page.Offset < 0 {
		return nil, invalidField("args.offset", "must be a whole number from 0")
	}
	items := []rpcschema.QueuedSend{}
	for _, record := range q.store.list(*page.Limit, *page.Offset) {
		items = append(items, publicSend(record))
	}
	return rpcschema.SendQueuePage{Total: q.store.count(), Items: items}, nil
}

// cancel removes a waiting send (SendQueueCancelResult); a submit waiting for it answers CONFLICT.
func (q *sendQueue) cancel(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &args) != nil || args.ID == "" || len(args.ID) > 64 {
		return nil, invalidField("args.id", "must be the id of a queued send, 1 to 64 characters")
	}
	cancelled, err := q.store.cancel(ctx, args.ID)
	if err != nil {
		return nil, err
	}
	if cancelled {
		q.settle(args.ID, sendOutcome{err: &CommandError{Code: hostapi.Conflict, Message: fmt.Sprintf("send '%s' of session '%s' was cancelled before it went out", args.ID, q.session),
			Details: map[string]any{"session": q.session, "id": args.ID}}})
		q.poke()
	}
	return map[string]any{"cancelled": cancelled}, nil
}

// configure applies the session's `sending` config from the next send (null: off).
func (q *sendQueue) configure(raw json.RawMessage) (any, error) {
	var args struct {
		Sending json.RawMessage `json:"sending"`
	}
	if err := json.Unmarshal(raw, &args); err != nil || len(args.Sending) == 0 {
		return nil, invalidField("args.sending", "is required: a SendingConfig, or null for off")
	}
	if string(args.Sending) == "null" {
		q.setConfig(nil)
		return nil, nil
	}
	config, err := decodeSendingConfig(args.Sending, "args.sending")
	if err != nil {
		return nil, err
	}
	q.setConfig(&config)
	return nil, nil
}

func messageIDOf(made any) (string, error) {
	encoded, _ := json.Marshal(made)
	var answer struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(encoded, &answer); err != nil || answer.ID == "" {
		return "", fmt.Errorf("account.newMessageId answered %s, not {id}", encoded)
	}
	return answer.ID, nil
}
