package natshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// kv is a KV bucket as an engine pod may reach it under its NATS permissions
// (operator/src/nats-auth/permissions.ts): bound without looking the stream up, reads as direct
// gets with the key in the request subject, writes as JetStream publishes to the key's subject,
// the key listing as a consumer whose filter is in its create subject. (nats.go's own KeyValue
// asks for the stream's info first, which an engine pod's user may not.)
type kv struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	bucket string
}

type kvEntry struct {
	value    []byte
	revision uint64
	deleted  bool
}

var errKeyExists = errors.New("key exists")

func (b *kv) subject(key string) string { return "$KV." + b.bucket + "." + key }

// get: nil when the key has no value (never written, deleted or purged: deleted tells).
func (b *kv) get(ctx context.Context, key string) (*kvEntry, error) {
	msg, err := b.nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET.KV_"+b.bucket+"."+b.subject(key), nil)
	if err != nil {
		return nil, err
	}
	switch status := msg.Header.Get("Status"); status {
	case "":
	case "404":
		return nil, nil
	default:
		return nil, fmt.Errorf("KV %s: direct get of %s answered %s %s", b.bucket, key, status, msg.Header.Get("Description"))
	}
	revision, _ := strconv.ParseUint(msg.Header.Get("Nats-Sequence"), 10, 64)
	op := msg.Header.Get("KV-Operation")
	return &kvEntry{value: msg.Data, revision: revision, deleted: op == "DEL" || op == "PURGE"}, nil
}

func (b *kv) publish(ctx context.Context, key string, value []byte, header nats.Header, opts ...jetstream.PublishOpt) (uint64, error) {
	ack, err := b.js.PublishMsg(ctx, &nats.Msg{Subject: b.subject(key), Data: value, Header: header}, opts...)
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

func (b *kv) put(ctx context.Context, key string, value []byte) (uint64, error) {
	return b.publish(ctx, key, value, nil)
}

// create writes the key only when it has no value; errKeyExists when it has one.
func (b *kv) create(ctx context.Context, key string, value []byte) (uint64, error) {
	revision, err := b.publish(ctx, key, value, nil, jetstream.WithExpectLastSequencePerSubject(0))
	if err == nil || !isWrongLastSequence(err) {
		return revision, err
	}
	// A deleted key still has a last sequence: its delete marker.
	entry, getErr := b.get(ctx, key)
	if getErr == nil && entry != nil && entry.deleted {
		return b.update(ctx, key, value, entry.revision)
	}
	return 0, errKeyExists
}

// update is a compare-and-set on the revision last written; a lost one is a wrong-last-sequence error.
func (b *kv) update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	return b.publish(ctx, key, value, nil, jetstream.WithExpectLastSequencePerSubject(revision))
}

// remove deletes the key (a marker); with revision > 0 only when that is its last.
func (b *kv) remove(ctx context.Context, key string, revision uint64) error {
	var opts []jetstream.PublishOpt
	if revision > 0 {
		opts = append(opts, jetstream.WithExpectLastSequencePerSubject(revision))
	}
	_, err := b.publish(ctx, key, nil, nats.Header{"KV-Operation": []string{"DEL"}}, opts...)
	return err
}

// purge removes the key's every revision but one marker.
func (b *kv) purge(ctx context.Context, key string) error {
	_, err := b.publish(ctx, key, nil, nats.Header{"KV-Operation": []string{"PURGE"}, "Nats-Rollup": []string{"sub"}})
	return err
}

// keys lists the keys under filter that have a value: an ordered, headers-only consumer of the
// last message per key, named, so its filter is in the create subject.
func (b *kv) keys(ctx context.Context, filter string) ([]string, error) {
	stream := "KV_" + b.bucket
	name := "keys_" + nuid.Next()
	inbox := b.nc.NewInbox()
	messages := make(chan *nats.Msg, 256)
	sub, err := b.nc.ChanSubscribe(inbox, messages)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	request, _ := json.Marshal(map[string]any{"stream_name": stream, "config": map[string]any{
		"name": name, "deliver_subject": inbox, "deliver_policy": "last_per_subject", "ack_policy": "none",
		"filter_subject": b.subject(filter), "headers_only": true, "mem_storage": true, "num_replicas": 1,
		"inactive_threshold": int64(5 * time.Second), "max_deliver": 1, "replay_policy": "instant",
	}})
	reply, err := b.nc.RequestWithContext(ctx, "$JS.API.CONSUMER.CREATE."+stream+"."+name+"."+b.subject(filter), request)
	if err != nil {
		return nil, err
	}
	var created struct {
		NumPending uint64 `json:"num_pending"`
		Error      *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &created); err != nil {
		return nil, err
	}
	if created.Error != nil {
		return nil, fmt.Errorf("KV %s: listing keys: %s", b.bucket, created.Error.Description)
	}
	var keys []string
	for remaining := created.NumPending; remaining > 0; {
		select {
		case msg := <-messages:
			if op := msg.Header.Get("KV-Operation"); op != "DEL" && op != "PURGE" {
				keys = append(keys, strings.TrimPrefix(msg.Subject, "$KV."+b.bucket+"."))
			}
			remaining = pendingOf(msg.Reply)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return keys, nil
}

// pendingOf reads the messages still to come from a delivery's reply subject
// ($JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>).
func pendingOf(reply string) uint64 {
	tokens := strings.Split(reply, ".")
	pending, _ := strconv.ParseUint(tokens[len(tokens)-1], 10, 64)
	return pending
}
