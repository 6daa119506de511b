package natshost

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Lease is invariant 1, as engine-pod/src/cluster/session-lease.ts keeps it: at most one live
// engine connection per session. One KV key in `sb_leases`: `create` succeeds for one pod only,
// renewals are compare-and-set on the revision last written, and the bucket's max age is the ttl,
// so a crashed pod's lease lapses. The revision it was acquired at is the fencing token.
type Lease struct {
	kv      *kv
	session string
	holder  string
	// podUID is the pod's uid (SWITCHBOARD_POD_UID): a key whose record carries it was written by
	// an earlier container of this very pod, which the kubelet only restarts once that container
	// has ended, so Acquire takes it back at once instead of waiting out its ttl. Empty: never.
	podUID string
	log    Logger
	ttl    time.Duration
	renew  time.Duration
	retry  time.Duration

	mu         sync.Mutex
	revision   uint64 // 0: not held
	token      uint64
	acquiredAt string
	renewTimer *time.Timer
	lapseTimer *time.Timer
	lost       func(reason string)
}

func newLease(kv *kv, session, holder, podUID string, log Logger) *Lease {
	return &Lease{kv: kv, session: session, holder: holder, podUID: podUID, log: log, ttl: leaseTTL, renew: leaseRenew, retry: time.Second}
}

// leaseRecord is what the key holds (LeaseRecord in session-lease.ts): enough to tell an operator
// who has the session, and a restarted container that the holder was its own pod.
type leaseRecord struct {
	Holder     string `json:"holder"`
	PodUID     string `json:"podUid,omitempty"`
	AcquiredAt string `json:"acquiredAt"`
	RenewedAt  string `json:"renewedAt"`
}

// Held says whether this pod holds the lease now.
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.revision != 0
}

// FencingToken is the revision the lease was acquired at.
func (l *Lease) FencingToken() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.token
}

// OnLost is called each time the lease is lost (once per acquisition): the holder must stop its
// engine at once. It may then Acquire again, as a fresh start would.
func (l *Lease) OnLost(callback func(reason string)) { l.lost = callback }

// Acquire returns once this pod holds the lease, or with the context's error.
func (l *Lease) Acquire(ctx context.Context) (uint64, error) {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		sentAt := time.Now()
		l.mu.Lock()
		l.acquiredAt = sentAt.UTC().Format("2006-01-02T15:04:05.000Z")
		l.mu.Unlock()
		revision, err := l.kv.create(ctx, l.session, l.value())
		if err == nil {
			l.mu.Lock()
			l.revision, l.token = revision, revision
			l.scheduleRenewal(sentAt)
			l.mu.Unlock()
			l.log.Info("session lease acquired", "holder", l.holder, "fencingToken", revision)
			return revision, nil
		}
		if !errors.Is(err, errKeyExists) {
			l.log.Warn("session lease: acquire failed", "err", err.Error())
		} else if revision, ok := l.takeBackFromEarlierContainer(ctx, sentAt); ok {
			return revision, nil
		} else if attempt == 0 {
			l.log.Info("session lease held by another pod; waiting", "holder", l.holder)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(l.retry):
		}
	}
}

// takeBackFromEarlierContainer: the key is held; when its record names this pod's uid, the holder
// was a container of this pod that has ended and the kubelet started this one in its place, or this
// very holder before its lease lapsed, whose engine the pod stopped then. No engine runs on it.
// Waiting out its ttl would only keep the session down, so the key is taken over by a
// compare-and-set on the revision read: a new revision (a higher fencing token), nobody else's
// write lost. False when the record is another pod's or the key moved meanwhile.
func (l *Lease) takeBackFromEarlierContainer(ctx context.Context, sentAt time.Time) (uint64, bool) {
	if l.podUID == "" {
		return 0, false
	}
	entry, err := l.kv.get(ctx, l.session)
	if err != nil {
		l.log.Warn("session lease: could not read the holder", "err", err.Error())
		return 0, false
	}
	if entry == nil || entry.deleted {
		return 0, false
	}
	var record leaseRecord
	if err := json.Unmarshal(entry.value, &record); err != nil || record.PodUID != l.podUID || record.Holder != l.holder {
		return 0, false
	}
	revision, err := l.kv.update(ctx, l.session, l.value(), entry.revision)
	if err != nil {
		if !isWrongLastSequence(err) {
			l.log.Warn("session lease: could not take back our own pod's lease", "err", err.Error())
		}
		return 0, false
	}
	l.mu.Lock()
	from := "an earlier container of this pod"
	if l.token != 0 {
		from = "its own record, from before it lapsed"
	}
	l.revision, l.token = revision, revision
	l.scheduleRenewal(sentAt)
	l.mu.Unlock()
	l.log.Info("session lease taken back from "+from, "holder", l.holder, "fencingToken", revision, "previous", entry.revision)
	return revision, true
}

// Release deletes the key, but only the revision this pod wrote: a lease taken over is not ours to end.
func (l *Lease) Release(ctx context.Context) {
	l.mu.Lock()
	l.stopTimers()
	revision := l.revision
	l.revision = 0
	l.mu.Unlock()
	if revision == 0 {
		return
	}
	if err := l.kv.remove(ctx, l.session, revision); err != nil {
		l.log.Warn("session lease: release failed; it lapses after its ttl", "err", err.Error())
		return
	}
	l.log.Info("session lease released", "fencingToken", l.token)
}

// scheduleRenewal arms the renewal and the lapse (mu held). The server counts the ttl from when it
// stored the write, after it was sent; the lease is given up a little earlier still, so the next
// holder never overlaps with this one.
func (l *Lease) scheduleRenewal(sentAt time.Time) {
	l.stopTimers()
	l.renewTimer = time.AfterFunc(l.renew, l.renewNow)
	margin := min(l.renew/2, time.Second)
	l.lapseTimer = time.AfterFunc(time.Until(sentAt.Add(l.ttl-margin)), func() { l.lose("not renewed within its ttl") })
}

func (l *Lease) renewNow() {
	l.mu.Lock()
	revision := l.revision
	l.mu.Unlock()
	if revision == 0 {
		return
	}
	sentAt := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), l.renew)
	defer cancel()
	next, err := l.kv.update(ctx, l.session, l.value(), revision)
	l.mu.Lock()
	if l.revision != revision {
		l.mu.Unlock()
		return
	}
	if err == nil {
		l.revision = next
		l.scheduleRenewal(sentAt)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	if isWrongLastSequence(err) {
		l.lose("another holder wrote the lease key")
		return
	}
	// NATS unreachable: keep trying until the lapse timer says the ttl has run out.
	l.log.Warn("session lease: renewal failed; retrying", "err", err.Error())
	l.mu.Lock()
	if l.revision == revision {
		l.renewTimer = time.AfterFunc(min(l.renew, time.Second), l.renewNow)
	}
	l.mu.Unlock()
}

func (l *Lease) lose(reason string) {
	l.mu.Lock()
	if l.revision == 0 {
		l.mu.Unlock()
		return
	}
	l.revision = 0
	l.stopTimers()
	l.mu.Unlock()
	l.log.Error("session lease lost", "reason", reason, "fencingToken", l.token)
	if l.lost != nil {
		l.lost(reason)
	}
}

func (l *Lease) stopTimers() {
	if l.renewTimer != nil {
		l.renewTimer.Stop()
	}
	if l.lapseTimer != nil {
		l.lapseTimer.Stop()
	}
	l.renewTimer, l.lapseTimer = nil, nil
}

// value is what the key holds (LeaseRecord): enough to tell an operator who has the session.
func (l *Lease) value() []byte {
	l.mu.Lock()
	acquiredAt := l.acquiredAt
	l.mu.Unlock()
	raw, _ := json.Marshal(leaseRecord{Holder: l.holder, PodUID: l.podUID, AcquiredAt: acquiredAt, RenewedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
	return raw
}

// isWrongLastSequence: JetStream's 10071, a compare-and-set that lost.
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
