package natshost

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/pacing"
)

// sendQueue is paced sending for the pod's session (engine-pod/src/sending/send-pacer.ts, one lane):
// it sends the queued sends when the pacing rules (internal/pacing) allow, one at a time, in
// queue order within a chat, typing before a text when configured. Its lane runs only while the
// pod holds the session's lease; what it sends and when is in the KV store (sendq_store.go), so
// the next pod of the session goes on where this one stopped.
type sendQueue struct {
	store   *sendQueueStore
	session string
	// execute runs an engine command as a command of the channel would (commands.executeStored).
	execute func(ctx context.Context, op string, args json.RawMessage) (any, error)
	// alreadySent: whether the engine sent this message (it is in the history): recovery's question.
	alreadySent func(ctx context.Context, chatID, id string) (bool, error)
	// leaseHeld gates every send: a pod that lost the lease sends nothing more.
	leaseHeld func() bool
	// metrics counts holds and waits (nil: none kept).
	metrics *queueMetrics
	log     Logger
	now     func() time.Time
	random  func() float64
	// retry: how long a send refused for a reason that passes (the session not working) waits.
	retry time.Duration

	mu          sync.Mutex
	config      *pacing.Config // nil: off; what waits still goes, unpaced
	pausedUntil time.Time
	retrying    bool
	waiters     map[string][]chan sendOutcome
	wake        chan struct{}
	stop        chan struct{}
	stopOnce    sync.Once
	done        chan struct{}
}

// sendOutcome is what a waiting submit learns: the engine's result, or the error the send failed with.
type sendOutcome struct {
	result any
	err    error
}

// passingCodes: refusals that pass (the session not working yet, events not stored); the send stays queued.
var passingCodes = map[hostapi.Code]bool{hostapi.WrongStatus: true, hostapi.NotStored: true, hostapi.StorageFull: true}

// unpaced is the config a session without `sending` has: what is queued goes as fast as it can.
var unpaced = pacing.Config{MaxQueued: math.MaxInt}

func newSendQueue(store *sendQueueStore, session string, log Logger) *sendQueue {
	return &sendQueue{store: store, session: session, log: log, now: time.Now, random: cryptoRandom, retry: 5 * time.Second,
		waiters: map[string][]chan sendOutcome{}, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// start loads the queue, settles what a stop or crash left `sending`, then runs the lane. Call it
// once the lease is held.
func (q *sendQueue) start(ctx context.Context) error {
	if err := q.store.load(ctx, q.now()); err != nil {
		return err
	}
	if err := q.recover(ctx); err != nil {
		return err
	}
	go q.run()
	return nil
}

// recover: a send left `sending` went out when its message is in the history (it is counted as
// sent), else it goes again with the same message id, which the messaging service takes as the
// same message.
func (q *sendQueue) recover(ctx context.Context) error {
	for _, send := range q.store.withState(stateSending) {
		sent, err := q.alreadySent(ctx, send.ChatID, send.ID)
		if err != nil {
			return fmt.Errorf("looking up queued send '%s' of session '%s' in the history: %w", send.ID, q.session, err)
		}
		if sent {
			err = q.store.markSent(ctx, send.ID, pacing.Sent{At: q.now(), ChatID: send.ChatID})
		} else {
			err = q.store.setState(ctx, send.ID, stateQueued)
		}
		if err != nil {
			return err
		}
		q.log.Info("queued send recovered", "id", send.ID, "alreadySent", sent)
	}
	return nil
}

// close stops the lane (a send being typed stays `sending`: the next pod's recovery settles it)
// and answers every waiting submit with the queued send.
func (q *sendQueue) close() {
	q.halt()
	<-q.done
}

// halt tells the lane to stop without waiting for it (a lost lease's timer must not wait on a
// send under way); close waits. Either may be called any number of times, from any goroutine.
func (q *sendQueue) halt() {
	q.stopOnce.Do(func() { close(q.stop) })
}

// configured is the config the lane paces by now (the start's, or setConfig's): the next lease
// term's queue starts from it.
func (q *sendQueue) configured() *pacing.Config {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.config
}

func (q *sendQueue) setConfig(config *pacing.Config) {
	q.mu.Lock()
	q.config = config
	q.mu.Unlock()
	q.poke()
}

func (q *sendQueue) currentConfig() pacing.Config {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.config == nil {
		return unpaced
	}
	return *q.config
}

// poke wakes the lane: a send added or cancelled, the config changed.
func (q *sendQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// working: the session works (again). Its pairing date is recorded once, and a send waiting to
// be tried again goes now, not after the retry pause.
func (q *sendQueue) working(ctx context.Context) {
	if err := q.store.setPairedAt(ctx, q.now()); err != nil {
		q.log.Warn("the pairing date of the send queue was not recorded", "err", err.Error())
	}
	q.mu.Lock()
	if q.retrying {
		q.retrying, q.pausedUntil = false, time.Time{}
	}
	q.mu.Unlock()
	q.poke()
}

func (q *sendQueue) pacingState(now time.Time) pacing.State {
	q.mu.Lock()
	pausedUntil := q.pausedUntil
	q.mu.Unlock()
	return pacing.State{Now: now, Sent: q.store.recentSends(now.Add(-pacing.Day)), PairedAt: q.store.pairing(), PausedUntil: pausedUntil}
}

func chatOf(send sendRecord) string { return send.ChatID }

// run is the lane: the next send when its slot comes, until the queue is closed or the lease lost.
func (q *sendQueue) run() {
	defer close(q.done)
	defer q.releaseWaiters()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	held := map[string]bool{}
	for {
		if q.stopped() || !q.leaseHeld() {
			return
		}
		config := q.currentConfig()
		now := q.now()
		next, ok := pacing.PickNext(config, q.pacingState(now), q.store.withState(stateQueued), chatOf)
		var wait <-chan time.Time
		if ok && next.Slot.At.After(now) {
			if next.Slot.HeldBy != "" && !held[next.Send.ID+" "+string(next.Slot.HeldBy)] {
				held[next.Send.ID+" "+string(next.Slot.HeldBy)] = true
				q.metrics.heldFor(next.Slot.HeldBy)
				q.log.Info("queued send held", "id", next.Send.ID, "reason", string(next.Slot.HeldBy), "until", next.Slot.At.UTC().Format(time.RFC3339Nano))
			}
			timer.Reset(next.Slot.At.Sub(now))
			wait = timer.C
		} else if ok {
			if err := q.send(next.Send, config); errors.Is(err, errFenced) {
				q.log.Error("the send queue stops: another holder of the session lease wrote it", "id", next.Send.ID)
				return
			}
			delete(held, next.Send.ID+" rate")
			delete(held, next.Send.ID+" warmup")
			continue
		}
		select {
		case <-q.stop:
			return
		case <-q.wake:
		case <-wait:
		}
		timer.Stop()
	}
}

// send sends one, typing first for a text when configured; it sets until when the lane pauses.
// errFenced when another holder wrote the queue: the lane stops.
func (q *sendQueue) send(send sendRecord, config pacing.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
	defer cancel()
	if err := q.store.setState(ctx, send.ID, stateSending); err != nil {
		if errors.Is(err, errFenced) {
			return err
		}
		if !errors.Is(err, errSendGone) {
			q.pause(q.retry, true)
			q.log.Warn("a queued send could not be marked sending; trying again", "id", send.ID, "err", err.Error())
		}
		return nil
	}
	if config.Typing != nil && send.Command.Op == "send.text" {
		var text struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(send.Command.Args, &text)
		q.typing(send.ChatID, pacing.TypingTime(*config.Typing, text.Text))
	}
	// Stopped while typing: the send stays `sending`, not in the history, so the next start sends it.
	if q.stopped() || !q.leaseHeld() {
		return nil
	}
	sendCtx, cancelSend := context.WithTimeout(context.Background(), commandDeadline)
	defer cancelSend()
	result, err := q.execute(sendCtx, send.Command.Op, send.Command.Args)
	at := q.now()
	storeCtx, cancelStore := context.WithTimeout(context.Background(), commandDeadline)
	defer cancelStore()
	var refusal *CommandError
	var stored error
	switch {
	case err == nil:
		if stored = q.store.markSent(storeCtx, send.ID, pacing.Sent{At: at, ChatID: send.ChatID}); stored != nil {
			// It went out: the history has it, so the next recovery counts it and does not send it again.
			q.log.Error("a queued send went out but is still marked sending", "id", send.ID, "err", stored.Error())
		}
		q.metrics.waited(at.UnixMilli() - send.QueuedAt)
		q.log.Info("queued send sent", "id", send.ID, "waitedMs", at.UnixMilli()-send.QueuedAt)
		q.settle(send.ID, sendOutcome{result: result})
		q.pause(pacing.DrawPause(config, q.random), false)
	case errors.As(err, &refusal) && passingCodes[refusal.Code]:
		if stored = q.store.setState(storeCtx, send.ID, stateQueued); stored != nil {
			q.log.Warn("a queued send refused for now stays sending until the next start", "id", send.ID, "err", stored.Error())
		} else {
			q.log.Info("a queued send waits: the session cannot send now", "id", send.ID, "code", string(refusal.Code))
		}
		q.pause(q.retry, true)
	default:
		if stored = q.store.drop(storeCtx, send.ID); stored != nil {
			q.log.Warn("a failed queued send could not be removed", "id", send.ID, "err", stored.Error())
		}
		q.log.Warn("a queued send failed and was dropped", "id", send.ID, "route", send.Route, "err", err.Error())
		q.settle(send.ID, sendOutcome{err: err})
		q.pause(pacing.DrawPause(config, q.random), false)
	}
	return stored
}

func (q *sendQueue) pause(length time.Duration, retrying bool) {
	q.mu.Lock()
	q.pausedUntil, q.retrying = q.now().Add(length), retrying
	q.mu.Unlock()
}

// typing shows composing presence for `length`, then paused; a stop ends it at once. A typing
// indicator that fails does not stop the send.
func (q *sendQueue) typing(chatID string, length time.Duration) {
	presence := func(typing bool) error {
		ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
		defer cancel()
		args, _ := json.Marshal(map[string]any{"chatId": chatID, "typing": typing})
		_, err := q.execute(ctx, "chat.typing", args)
		return err
	}
	if err := presence(true); err != nil {
		q.log.Warn("typing before a queued text failed; the text is sent", "chatId", chatID, "err", err.Error())
		return
	}
	timer := time.NewTimer(length)
	select {
	case <-timer.C:
	case <-q.stop:
		timer.Stop()
	}
	if err := presence(false); err != nil {
		q.log.Warn("typing before a queued text failed; the text is sent", "chatId", chatID, "err", err.Error())
	}
}

func (q *sendQueue) stopped() bool {
	select {
	case <-q.stop:
		return true
	default:
		return false
	}
}

// wait registers a submit waiting for a send's outcome.
func (q *sendQueue) wait(id string) chan sendOutcome {
	outcome := make(chan sendOutcome, 1)
	q.mu.Lock()
	q.waiters[id] = append(q.waiters[id], outcome)
	q.mu.Unlock()
	return outcome
}

func (q *sendQueue) unwait(id string, outcome chan sendOutcome) {
	q.mu.Lock()
	defer q.mu.Unlock()
	rest := q.waiters[id][:0]
	for _, other := range q.waiters[id] {
		if other != outcome {
			rest = append(rest, other)
		}
	}
	if len(rest) == 0 {
		delete(q.waiters, id)
	} else {
		q.waiters[id] = rest
	}
}

func (q *sendQueue) settle(id string, outcome sendOutcome) {
	q.mu.Lock()
	waiters := q.waiters[id]
	delete(q.waiters, id)
	q.mu.Unlock()
	for _, waiter := range waiters {
		waiter <- outcome
	}
}

// releaseWaiters: the lane stopped; each waiting submit answers with its send still queued.
func (q *sendQueue) releaseWaiters() {
	q.mu.Lock()
	waiters := q.waiters
	q.waiters = map[string][]chan sendOutcome{}
	q.mu.Unlock()
	for _, list := range waiters {
		for _, waiter := range list {
			close(waiter)
		}
	}
}

func cryptoRandom() float64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return float64(binary.BigEndian.Uint64(b[:])>>11) / (1 << 53)
}
