package natshost

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/engines/gows/internal/pacing"
)

// sendQueueStore keeps one session's queue, recent sends and pairing date in sendQueuesBucket.
// Only the pod holding the session's lease writes, so it keeps a copy in memory (loaded once the
// lease is held) and writes through; every write is a compare-and-set on the revision it read,
// so a pod that lost the lease cannot overwrite what the next holder wrote. Each method is one
// step a crash leaves whole: a send is queued, sending (fate unknown) or sent.
type sendQueueStore struct {
	kv      *kv
	session string
	// token is the lease's fencing token, written into every record.
	token func() uint64

	mu      sync.Mutex
	queue   []*storedSend // in seq order
	lastSeq uint64
	sent    []pacing.Sent
	// minutes: the revision of each `sent` key this pod read or wrote.
	minutes         map[int64]uint64
	pairedAt        time.Time
	pairingRevision uint64
}

type storedSend struct {
	record   sendRecord
	revision uint64
}

var (
	// errSendGone: the send is not in the queue (sent, dropped or cancelled).
	errSendGone = errors.New("the send is no longer queued")
	// errFenced: a compare-and-set lost, so another holder of the lease wrote the key: this pod
	// paces no more (its lease is lost or about to be).
	errFenced = errors.New("another holder of the session lease wrote the send queue")
)

func newSendQueueStore(bucket *kv, session string, token func() uint64) *sendQueueStore {
	return &sendQueueStore{kv: bucket, session: session, token: token, minutes: map[int64]uint64{}}
}

func (s *sendQueueStore) queuedKey(id string) string { return s.session + ".queue." + authKeyToken(id) }
func (s *sendQueueStore) minuteKey(minute int64) string {
	return s.session + ".sent." + strconv.FormatInt(minute, 10)
}
func (s *sendQueueStore) pairingKey() string { return s.session + ".pairing" }

// load reads the session's queue, its sends of the last two days and its pairing date; minute
// keys older than that are deleted.
func (s *sendQueueStore) load(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.lastSeq, s.sent, s.minutes = nil, 0, nil, map[int64]uint64{}
	keys, err := s.kv.keys(ctx, s.session+".queue.*")
	if err != nil {
		return fmt.Errorf("reading the send queue of session '%s': %w", s.session, err)
	}
	for _, key := range keys {
		entry, err := s.kv.get(ctx, key)
		if err != nil {
			return err
		}
		if entry == nil || entry.deleted {
			continue
		}
		var record sendRecord
		if err := json.Unmarshal(entry.value, &record); err != nil {
			return fmt.Errorf("send queue key %s is not a SendQueueRecord: %w", key, err)
		}
		s.queue = append(s.queue, &storedSend{record: record, revision: entry.revision})
		s.lastSeq = max(s.lastSeq, record.Seq)
	}
	slices.SortFunc(s.queue, func(a, b *storedSend) int { return cmp.Compare(a.record.Seq, b.record.Seq) })
	keys, err = s.kv.keys(ctx, s.session+".sent.*")
	if err != nil {
		return err
	}
	oldest := minuteOf(now.Add(-sentKept))
	for _, key := range keys {
		minute, err := strconv.ParseInt(strings.TrimPrefix(key, s.session+".sent."), 10, 64)
		if err != nil {
			continue
		}
		entry, err := s.kv.get(ctx, key)
		if err != nil {
			return err
		}
		if entry == nil || entry.deleted {
			continue
		}
		if minute < oldest {
			_ = s.kv.remove(ctx, key, entry.revision)
			continue
		}
		var record sentMinute
		if err := json.Unmarshal(entry.value, &record); err != nil {
			return fmt.Errorf("send queue key %s is not a SentMinuteRecord: %w", key, err)
		}
		s.minutes[minute] = entry.revision
		for _, send := range record.Sends {
			s.sent = append(s.sent, pacing.Sent{At: time.UnixMilli(send.At), ChatID: send.ChatID})
		}
	}
	entry, err := s.kv.get(ctx, s.pairingKey())
	if err != nil {
		return err
	}
	s.pairedAt, s.pairingRevision = time.Time{}, 0
	if entry != nil && !entry.deleted {
		var record sendPairing
		if json.Unmarshal(entry.value, &record) == nil {
			s.pairedAt, s.pairingRevision = time.UnixMilli(record.PairedAt), entry.revision
		}
	}
	return nil
}

// add appends a send to the queue, stamping its seq and fencing token; false when the session
// already has a send with its id.
func (s *sendQueueStore) add(ctx context.Context, record sendRecord) (sendRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.find(record.ID) != nil {
		return record, false, nil
	}
	record.Seq, record.FencingToken, record.State = s.lastSeq+1, s.token(), stateQueued
	raw, err := json.Marshal(record)
	if err != nil {
		return record, false, err
	}
	revision, err := s.kv.create(ctx, s.queuedKey(record.ID), raw)
	if errors.Is(err, errKeyExists) {
		return record, false, nil
	}
	if err != nil {
		return record, false, err
	}
	s.lastSeq = record.Seq
	s.queue = append(s.queue, &storedSend{record: record, revision: revision})
	return record, true, nil
}

func (s *sendQueueStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// list is one page of the queue, oldest first.
func (s *sendQueueStore) list(limit, offset int) []sendRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	var page []sendRecord
	for i := offset; i < len(s.queue) && len(page) < limit; i++ {
		page = append(page, s.queue[i].record)
	}
	return page
}

// position is how many sends are before this one; -1: not queued.
func (s *sendQueueStore) position(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.IndexFunc(s.queue, func(send *storedSend) bool { return send.record.ID == id })
}

// withState: the sends in one state, in queue order.
func (s *sendQueueStore) withState(state string) []sendRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sends []sendRecord
	for _, send := range s.queue {
		if send.record.State == state {
			sends = append(sends, send.record)
		}
	}
	return sends
}

// setState moves a queued send to `sending` (it can no longer be cancelled) or back.
func (s *sendQueueStore) setState(ctx context.Context, id, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	send := s.find(id)
	if send == nil {
		return errSendGone
	}
	record := send.record
	record.State, record.FencingToken = state, s.token()
	raw, err := json.Marshal(record)
	if err != nil {
		return err
	}
	revision, err := s.kv.update(ctx, s.queuedKey(id), raw, send.revision)
	if isWrongLastSequence(err) {
		return errFenced
	}
	if err != nil {
		return err
	}
	send.record, send.revision = record, revision
	return nil
}

// markSent counts the send in its minute first, then removes it from the queue: a crash between
// the two leaves it `sending` and counted, and recovery finds it in the history (counted twice
// holds the next send a little longer; never counted would let one more through).
func (s *sendQueueStore) markSent(ctx context.Context, id string, sent pacing.Sent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.countSent(ctx, sent); err != nil {
		return err
	}
	return s.removeLocked(ctx, id, "")
}

// drop removes a send that failed for good.
func (s *sendQueueStore) drop(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeLocked(ctx, id, "")
}

// cancel removes a send still `queued`; false when it is not there or already sending.
func (s *sendQueueStore) cancel(ctx context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.removeLocked(ctx, id, stateQueued)
	if errors.Is(err, errSendGone) {
		return false, nil
	}
	return err == nil, err
}

// removeLocked deletes a send's key at the revision this pod holds (mu held); with state, only a
// send in that state.
func (s *sendQueueStore) removeLocked(ctx context.Context, id, state string) error {
	send := s.find(id)
	if send == nil || (state != "" && send.record.State != state) {
		return errSendGone
	}
	err := s.kv.remove(ctx, s.queuedKey(id), send.revision)
	if isWrongLastSequence(err) {
		return errFenced
	}
	if err != nil {
		return err
	}
	s.queue = slices.DeleteFunc(s.queue, func(other *storedSend) bool { return other == send })
	return nil
}

func (s *sendQueueStore) find(id string) *storedSend {
	for _, send := range s.queue {
		if send.record.ID == id {
			return send
		}
	}
	return nil
}
