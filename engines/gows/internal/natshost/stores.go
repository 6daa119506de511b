package natshost

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The streams and buckets of kube/src/nats/stores.ts, with the settings they are created with.
// The operator creates them before it runs a pod; a pod with NATS credentials may only bind
// (its permissions stop at its session's keys), one without creates what is missing, as the Node
// pod does.

const (
	eventsStream   = "SB_EVENTS"
	authBucket     = "sb_auth"
	leaseBucket    = "sb_leases"
	messagesBucket = "sb_messages"
	leaseTTL       = 15 * time.Second
	leaseRenew     = 5 * time.Second
	mediaLifetime  = 24 * time.Hour
	commandsTTL    = 10 * time.Minute
	day            = 24 * time.Hour
)

// openKV binds to a bucket; without credentials it first creates it when missing.
func openKV(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, bucket string, ttl time.Duration, bind bool) (*kv, error) {
	if !bind {
		if _, err := js.KeyValue(ctx, bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
			_, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, History: 1, TTL: ttl, Storage: jetstream.FileStorage})
			if err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		}
	}
	return &kv{nc: nc, js: js, bucket: bucket}, nil
}

func ensureEventStream(ctx context.Context, js jetstream.JetStream, bind bool) error {
	if bind {
		return nil
	}
	if _, err := js.Stream(ctx, eventsStream); err == nil || !errors.Is(err, jetstream.ErrStreamNotFound) {
		return err
	}
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: eventsStream, Subjects: []string{"sb.evt.>"}, Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
		Discard: jetstream.DiscardOld, MaxAge: 7 * day, Duplicates: 2 * time.Minute,
	})
	return err
}

// openObjects binds to one of the session's object stores (OBJECT_STORES of protocol/src/cluster.ts),
// creating it with its TTL when missing (the gateway may have made it first with another: the
// loser takes the winner's).
func openObjects(ctx context.Context, js jetstream.JetStream, bucket string, ttl time.Duration) (jetstream.ObjectStore, error) {
	os, err := js.ObjectStore(ctx, bucket)
	if err == nil || !errors.Is(err, jetstream.ErrBucketNotFound) {
		return os, err
	}
	os, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket, TTL: ttl, Storage: jetstream.FileStorage})
	if err != nil {
		if again, bindErr := js.ObjectStore(ctx, bucket); bindErr == nil {
			return again, nil
		}
	}
	return os, err
}
