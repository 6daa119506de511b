package natshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard/engines/gows/internal/pacing"
)

// What the store keeps beside the queue: the sends of the last two days, one key a minute (the
// pacing windows and the warm-up's daily cap read them), and the date the session was paired.

// recentSends: the sends since `since`, for the pacing windows.
func (s *sendQueueStore) recentSends(since time.Time) []pacing.Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var recent []pacing.Sent
	for _, send := range s.sent {
		if !send.At.Before(since) {
			recent = append(recent, send)
		}
	}
	return recent
}

func (s *sendQueueStore) pairing() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pairedAt
}

// setPairedAt records the pairing date once: a date already recorded stays.
func (s *sendQueueStore) setPairedAt(ctx context.Context, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pairedAt.IsZero() {
		return nil
	}
	raw, _ := json.Marshal(sendPairing{PairedAt: at.UnixMilli(), FencingToken: s.token()})
	revision, err := s.kv.create(ctx, s.pairingKey(), raw)
	if errors.Is(err, errKeyExists) {
		return nil
	}
	if err != nil {
		return err
	}
	s.pairedAt, s.pairingRevision = at, revision
	return nil
}

// forgetPairing: a logout; the next pairing is a new account's day 0.
func (s *sendQueueStore) forgetPairing(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pairedAt.IsZero() {
		return nil
	}
	if err := s.kv.remove(ctx, s.pairingKey(), s.pairingRevision); err != nil {
		return err
	}
	s.pairedAt, s.pairingRevision = time.Time{}, 0
	return nil
}

// countSent adds a send to its minute's record (mu held) and prunes what is older than sentKept.
func (s *sendQueueStore) countSent(ctx context.Context, sent pacing.Sent) error {
	minute := minuteOf(sent.At)
	key := s.minuteKey(minute)
	record := sentMinute{}
	if revision, known := s.minutes[minute]; known {
		entry, err := s.kv.get(ctx, key)
		if err != nil {
			return err
		}
		if entry != nil && !entry.deleted && entry.revision == revision {
			if err := json.Unmarshal(entry.value, &record); err != nil {
				return err
			}
		}
	}
	record.Sends = append(record.Sends, sentSend{ChatID: sent.ChatID, At: sent.At.UnixMilli()})
	record.FencingToken = s.token()
	raw, err := json.Marshal(record)
	if err != nil {
		return err
	}
	var revision uint64
	if previous, known := s.minutes[minute]; known {
		revision, err = s.kv.update(ctx, key, raw, previous)
	} else {
		revision, err = s.kv.create(ctx, key, raw)
	}
	if isWrongLastSequence(err) {
		return errFenced
	}
	if err != nil {
		return fmt.Errorf("counting a send of session '%s' in %s: %w", s.session, key, err)
	}
	s.minutes[minute] = revision
	s.sent = append(s.sent, sent)
	oldest := sent.At.Add(-sentKept)
	s.sent = slices.DeleteFunc(s.sent, func(send pacing.Sent) bool { return send.At.Before(oldest) })
	for old, revision := range s.minutes {
		if old < minuteOf(oldest) && s.kv.remove(ctx, s.minuteKey(old), revision) == nil {
			delete(s.minutes, old)
		}
	}
	return nil
}

func minuteOf(at time.Time) int64 { return at.UnixMilli() / 60_000 }
