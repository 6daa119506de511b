package natshost

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// history is the message history recorder (engine-pod/src/history/history-recorder.ts) over KV
// bucket `sb_messages` (engine-pod/src/cluster/nats-message-store.ts): key
// `<session>.<chat>.<message>` holds `{ record, order? }`, `<session>.<chat>` the chat's other
// address. Operations run one at a time in event order; a failing write is retried a few times,
// then logged and dropped: history is a convenience record and must not hold back events.
type history struct {
	kv      *kv
	session string
	log     Logger
	queue   chan func(context.Context) error
	done    chan struct{}
}

var retryDelays = []time.Duration{100 * time.Millisecond, 400 * time.Millisecond, 1600 * time.Millisecond, 5 * time.Second}

var ackNames = map[int]string{-1: "ERROR", 0: "PENDING", 1: "SERVER", 2: "DEVICE", 3: "READ", 4: "PLAYED"}

// ackServerReached is SERVER: the messaging service has the message.
const ackServerReached = 1

func newHistory(kv *kv, session string, log Logger) *history {
	h := &history{kv: kv, session: session, log: log, queue: make(chan func(context.Context) error, 4096), done: make(chan struct{})}
	go h.run()
	return h
}

func (h *history) run() {
	defer close(h.done)
	for operation := range h.queue {
		for attempt := 0; ; attempt++ {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := operation(ctx)
			cancel()
			if err == nil {
				break
			}
			if attempt >= len(retryDelays) {
				h.log.Error("message history: write failed; this event is not in the history", "err", err.Error())
				break
			}
			h.log.Warn("message history: write failed; retrying", "attempt", attempt, "err", err.Error())
			time.Sleep(retryDelays[attempt])
		}
	}
}

// close takes no more events; the ones queued are still written.
func (h *history) close() {
	close(h.queue)
	<-h.done
}

func (h *history) record(event string, payload map[string]any) {
	var operation func(context.Context) error
	switch event {
	case "message.any":
		operation = func(ctx context.Context) error { return h.upsert(ctx, payload) }
	case "message.ack":
		operation = func(ctx context.Context) error { return h.acknowledge(ctx, payload) }
	case "message.edited":
		body, _ := payload["body"].(string)
		operation = func(ctx context.Context) error {
			return h.change(ctx, payload["id"], payload["editedMessageId"], func(record map[string]any) { record["body"] = body })
		}
	case "message.revoked":
		after, _ := payload["after"].(map[string]any)
		operation = func(ctx context.Context) error {
			return h.change(ctx, after["id"], payload["revokedMessageId"], func(record map[string]any) {
				record["body"], record["hasMedia"], record["media"] = "", false, nil
			})
		}
	case "engine.event":
		// A chat deleted on the phone, relayed as Baileys' `chats.delete` (engines/gows/chat-state.go):
		// the chats lists drop it as the phone does.
		// And the phone's history sync at pairing (engines/gows/history-sync.go): each record kept as message.any keeps one.
		if synced := historyRecords(payload); len(synced) > 0 {
			operation = func(ctx context.Context) error {
				for _, record := range synced {
					if err := h.upsert(ctx, record); err != nil {
						return err
					}
				}
				return nil
			}
			break
		}
		chats := deletedChats(payload)
		if len(chats) == 0 {
			return
		}
		operation = func(ctx context.Context) error {
			for _, chat := range chats {
				if err := h.forgetChat(ctx, chat); err != nil {
					return err
				}
			}
			return nil
		}
	default:
		return
	}
	defer func() { _ = recover() }() // closed: the pod is stopping
	h.queue <- operation
}

var messageIDPattern = regexp.MustCompile(`^(true|false)_([^_]+)_([^_]+)(?:_(.+))?$`)

// parseMessageID reads a spec 2.5 message id: its chat and its id without the chat.
func parseMessageID(id string) (chat, message string, ok bool) {
	match := messageIDPattern.FindStringSubmatch(id)
	if match == nil {
		return "", "", false
	}
	return match[2], match[3], true
}

func (h *history) chatKey(chat string) string { return h.session + "." + authKeyToken(chat) }
func (h *history) messageKey(chat, message string) string {
	return h.chatKey(chat) + "." + authKeyToken(message)
}

type storedValue struct {
	Record map[string]any `json:"record"`
	Order  *uint64        `json:"order,omitempty"`
}

func (h *history) get(ctx context.Context, chat, message string) (map[string]any, *uint64, error) {
	record, order, _, err := h.getRevision(ctx, chat, message)
	return record, order, err
}

// getRevision is get with the revision the record was read at, for a compare-and-set (update).
func (h *history) getRevision(ctx context.Context, chat, message string) (map[string]any, *uint64, uint64, error) {
	entry, err := h.kv.get(ctx, h.messageKey(chat, message))
	if err != nil || entry == nil || entry.deleted {
		return nil, nil, 0, err
	}
	var stored storedValue
	if err := decodeNumbers(entry.value, &stored); err != nil {
		return nil, nil, 0, err
	}
	order := stored.Order
	if order == nil {
		revision := entry.revision
		order = &revision
	}
	return stored.Record, order, entry.revision, nil
}

func (h *history) put(ctx context.Context, chat, message string, record map[string]any, order *uint64) error {
	raw, err := json.Marshal(storedValue{Record: record, Order: order})
	if err != nil {
		return err
	}
	_, err = h.kv.put(ctx, h.messageKey(chat, message), raw)
	return err
}

// update writes the record only if its key is still at revision; a lost race is a wrong-last-sequence error.
func (h *history) update(ctx context.Context, chat, message string, record map[string]any, order *uint64, revision uint64) error {
	raw, err := json.Marshal(storedValue{Record: record, Order: order})
	if err != nil {
		return err
	}
	_, err = h.kv.update(ctx, h.messageKey(chat, message), raw, revision)
	return err
}

func ackOf(value any) (int, bool) {
	var ack int64
	switch v := value.(type) {
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return 0, false
		}
		ack = n
	case float64:
		ack = int64(v)
	default:
		return 0, false
	}
	_, known := ackNames[int(ack)]
	return int(ack), known
}

// furtherAck: acknowledgements only move forward; ERROR is the one step back, taken only by a
// message that never reached the recipient's device.
func furtherAck(current, next int) int {
	if next == -1 {
		if current < 2 {
			return -1
		}
		return current
	}
	return max(current, next)
}

func (h *history) upsert(ctx context.Context, record map[string]any) error {
	id, _ := record["id"].(string)
	chat, message, ok := parseMessageID(id)
	if !ok {
		fromMe, _ := record["fromMe"].(bool)
		chat, _ = record["from"].(string)
		if fromMe {
			chat, _ = record["to"].(string)
		}
		message = id
	}
	existing, order, err := h.get(ctx, chat, message)
	if err != nil {
		return err
	}
	ack, _ := ackOf(record["ack"])
	if existing != nil {
		if before, known := ackOf(existing["ack"]); known {
			ack = furtherAck(before, ack)
		}
	}
	copied := make(map[string]any, len(record)+1)
	for key, value := range record {
		copied[key] = value
	}
	copied["ack"], copied["ackName"] = ack, ackNames[ack]
	if err := h.put(ctx, chat, message, copied, order); err != nil {
		return err
	}
	if alias := chatAliasOf(record, chat); alias != "" {
		if err := h.setAlias(ctx, chat, alias); err != nil {
			return err
		}
		return h.setAlias(ctx, alias, chat)
	}
	return nil
}

func (h *history) acknowledge(ctx context.Context, payload map[string]any) error {
	// One member's receipt of our own group message says nothing of the message as a whole.
	if fromMe, _ := payload["fromMe"].(bool); fromMe && payload["participant"] != nil && payload["participant"] != "" {
		return nil
	}
	id, _ := payload["id"].(string)
	chat, message, ok := parseMessageID(id)
	ack, known := ackOf(payload["ack"])
	if !ok || !known {
		return nil
	}
	// By compare-and-set: a gateway forgets a chat cleared or deleted through the API, and an ack
	// read before that and written after would bring the message back (nats-message-store.ts
	// advanceAck). A lost race is with that forget (the key is gone) or another write (read again).
	for attempt := 0; attempt < 3; attempt++ {
		existing, order, revision, err := h.getRevision(ctx, chat, message)
		if err != nil || existing == nil {
			return err
		}
		before, _ := ackOf(existing["ack"])
		next := furtherAck(before, ack)
		if next == before {
			return nil
		}
		existing["ack"], existing["ackName"] = next, ackNames[next]
		if err := h.update(ctx, chat, message, existing, order, revision); err == nil || !isWrongLastSequence(err) {
			return err
		}
	}
	return nil
}

// change: edits and revokes name the message by its id without the chat, and the chat by their
// own action's id; the message may sit under the chat's other address.
func (h *history) change(ctx context.Context, actionID, targetID any, apply func(map[string]any)) error {
	action, _ := actionID.(string)
	target, _ := targetID.(string)
	chat, _, ok := parseMessageID(action)
	if !ok || target == "" {
		return nil
	}
	alias, err := h.aliasOf(ctx, chat)
	if err != nil {
		return err
	}
	for _, candidate := range []string{chat, alias} {
		if candidate == "" {
			continue
		}
		existing, order, err := h.get(ctx, candidate, target)
		if err != nil {
			return err
		}
		if existing != nil {
			apply(existing)
			return h.put(ctx, candidate, target, existing, order)
		}
	}
	return nil
}

// wentOut: whether the message is in the history, under the chat or its other address, and
// acknowledged by the server at least (wentOut in engine-pod/src/sending/went-out.ts: the engine
// tells a message, ack PENDING, before it is on the wire, so a PENDING record may be of one that
// never went). The send queue's recovery asks it of a send whose fate a crash left unknown.
func (h *history) wentOut(ctx context.Context, chat, message string) (bool, error) {
	alias, err := h.aliasOf(ctx, chat)
	if err != nil {
		return false, err
	}
	for _, candidate := range []string{chat, alias} {
		if candidate == "" {
			continue
		}
		record, _, err := h.get(ctx, candidate, message)
		if err != nil {
			return false, err
		}
		if record != nil {
			ack, _ := ackOf(record["ack"])
			return ack >= ackServerReached, nil
		}
	}
	return false, nil
}

// forgetChat: the chat's messages go, under both its addresses; its alias key stays (forgetChatHistory in
// engine-pod/src/history/message-store.ts, the engine pod's key by key forgetChat in nats-message-store.ts).
func (h *history) forgetChat(ctx context.Context, chat string) error {
	alias, err := h.aliasOf(ctx, chat)
	if err != nil {
		return err
	}
	for _, id := range []string{chat, alias} {
		if id == "" {
			continue
		}
		keys, err := h.kv.keys(ctx, h.chatKey(id)+".*")
		if err != nil {
			return err
		}
		for _, key := range keys {
			if err := h.kv.purge(ctx, key); err != nil {
				return err
			}
		}
	}
	return nil
}

var groupPattern = regexp.MustCompile(`^[\d-]+@g\.us$`)

// historyRecords: the message records of an `engine.event` `messaging-history.set` (`{messages: [record]}`).
func historyRecords(payload map[string]any) []map[string]any {
	if payload["event"] != "messaging-history.set" {
		return nil
	}
	data, _ := payload["data"].(map[string]any)
	messages, _ := data["messages"].([]any)
	var records []map[string]any
	for _, message := range messages {
		if record, ok := message.(map[string]any); ok {
			if id, _ := record["id"].(string); id != "" {
				records = append(records, record)
			}
		}
	}
	return records
}

// deletedChats: the chats of an `engine.event` `chats.delete` (`{items: [jid]}`) in the interface's
// addressing (libraryDeletedChats in engine-pod/src/history/chat-alias.ts).
func deletedChats(payload map[string]any) []string {
	if payload["event"] != "chats.delete" {
		return nil
	}
	data, _ := payload["data"].(map[string]any)
	items, _ := data["items"].([]any)
	var chats []string
	for _, item := range items {
		if s, _ := item.(string); groupPattern.MatchString(s) {
			chats = append(chats, s)
		} else if contact := contactOf(item); contact != "" {
			chats = append(chats, contact)
		}
	}
	return chats
}

func (h *history) aliasOf(ctx context.Context, chat string) (string, error) {
	entry, err := h.kv.get(ctx, h.chatKey(chat))
	if err != nil || entry == nil || entry.deleted {
		return "", err
	}
	return string(entry.value), nil
}

func (h *history) setAlias(ctx context.Context, chat, other string) error {
	current, err := h.aliasOf(ctx, chat)
	if err != nil || current == other {
		return err
	}
	_, err = h.kv.put(ctx, h.chatKey(chat), []byte(other))
	return err
}

var contactPattern = regexp.MustCompile(`^(\d+)(?::\d+)?@(s\.whatsapp\.net|c\.us|lid)$`)

func contactOf(jid any) string {
	s, _ := jid.(string)
	match := contactPattern.FindStringSubmatch(s)
	if match == nil {
		return ""
	}
	if match[2] == "lid" {
		return match[1] + "@lid"
	}
	return match[1] + "@c.us"
}

// chatAliasOf: the other address of a direct chat, when the record's raw key shows both
// (engine-pod/src/history/chat-alias.ts).
func chatAliasOf(record map[string]any, chat string) string {
	data, _ := record["_data"].(map[string]any)
	key, _ := data["key"].(map[string]any)
	if key == nil {
		return ""
	}
	lid, phone := "", ""
	for _, address := range []string{chat, contactOf(key["remoteJid"]), contactOf(key["remoteJidAlt"])} {
		if lid == "" && strings.HasSuffix(address, "@lid") {
			lid = address
		}
		if phone == "" && strings.HasSuffix(address, "@c.us") {
			phone = address
		}
	}
	switch {
	case lid == "" || phone == "":
		return ""
	case chat == lid:
		return phone
	case chat == phone:
		return lid
	}
	return ""
}
