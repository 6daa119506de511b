package natshost

import "encoding/json"

// sendQueuesBucket and its keys and records are protocol/src/send-queue-records.ts's: the Node
// engine pod reads and writes the same, so a session moves between the two pods with its queue.
const (
	sendQueuesBucket = "sb_send_queues"
	// sentKept is how long sent sends are kept (SENT_KEPT_MS): the warm-up counts a day of them.
	sentKept = 2 * day
)

// sendRecord is a SendQueueRecord: a waiting send, `sending` once handed to the engine.
type sendRecord struct {
	ID       string       `json:"id"`
	Session  string       `json:"session"`
	ChatID   string       `json:"chatId"`
	Route    string       `json:"route"`
	State    string       `json:"state"`
	QueuedAt int64        `json:"queuedAt"`
	Command  queuedAction `json:"command"`
	// Seq is the queue order: one more than the highest ever given, restored from the records.
	Seq          uint64 `json:"seq"`
	FencingToken uint64 `json:"fencingToken"`
}

// queuedAction is the paced engine command, its args kept as they came (numbers and all).
type queuedAction struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

const (
	stateQueued  = "queued"
	stateSending = "sending"
)

type sentSend struct {
	ChatID string `json:"chatId"`
	At     int64  `json:"at"`
}

// sentMinute is a SentMinuteRecord: the sends of one minute.
type sentMinute struct {
	Sends        []sentSend `json:"sends"`
	FencingToken uint64     `json:"fencingToken"`
}

// sendPairing is a SendPairingRecord: the date the warm-up counts from.
type sendPairing struct {
	PairedAt     int64  `json:"pairedAt"`
	FencingToken uint64 `json:"fencingToken"`
}
