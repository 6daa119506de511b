package natshost

import (
	"github.com/switchboard/engines/gows/internal/hostapi"

	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publisher is invariant 2, as engine-pod/src/cluster/event-publisher.ts keeps it: no event is
// lost between the engine and the stream. Events are published one at a time in the order the
// host made them, each retried until JetStream acks it, with the event id as message id so a
// retry is stored once. A command's reply waits on `stored` (a 201 means stored).
type publisher struct {
	js  jetstream.JetStream
	log Logger

	mu      sync.Mutex
	queue   []outgoing
	queued  int
	acked   int
	failure string
	waiters []chan error // each waits for acked to reach its mark
	marks   []int
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	stop    context.CancelFunc
	ctx     context.Context
}

type outgoing struct {
	id, subject string
	data        []byte
}

func newPublisher(js jetstream.JetStream, log Logger) *publisher {
	ctx, stop := context.WithCancel(context.Background())
	p := &publisher{js: js, log: log, wake: make(chan struct{}, 1), done: make(chan struct{}), ctx: ctx, stop: stop}
	go p.run()
	return p
}

// publish queues one event; never refused while open.
func (p *publisher) publish(id, session, event string, data []byte) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.log.Error("event published after close; dropped", "eventId", id, "event", event)
		return
	}
	p.queue = append(p.queue, outgoing{id: id, subject: "sb.evt." + session + "." + event, data: data})
	p.queued++
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *publisher) failing() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure
}

// stored returns once every event queued before the call is acked; an error (a CommandError)
// when one is refused or the timeout runs out.
func (p *publisher) stored(timeout time.Duration) error {
	p.mu.Lock()
	mark := p.queued
	if p.acked >= mark {
		p.mu.Unlock()
		return nil
	}
	ch := make(chan error, 1)
	p.waiters = append(p.waiters, ch)
	p.marks = append(p.marks, mark)
	p.mu.Unlock()
	select {
	case err := <-ch:
		return err
	case <-time.After(timeout):
		p.mu.Lock()
		reason := p.failure
		p.mu.Unlock()
		if reason == "" {
			reason = fmt.Sprintf("JetStream did not acknowledge the events within %d ms", timeout.Milliseconds())
		}
		return eventsNotStored(reason, true)
	}
}

// flush waits up to timeout for the queue to empty; false when it did not.
func (p *publisher) flush(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		empty := len(p.queue) == 0
		p.mu.Unlock()
		if empty {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (p *publisher) close() {
	p.mu.Lock()
	p.closed = true
	pending := len(p.queue)
	p.mu.Unlock()
	if pending > 0 {
		p.log.Error("event publisher closed with events not acked", "pending", pending)
	}
	p.stop()
	p.refuseWaiters("the engine pod is stopping")
}

func (p *publisher) run() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			select {
			case <-p.wake:
				continue
			case <-p.ctx.Done():
				return
			}
		}
		head := p.queue[0]
		p.mu.Unlock()
		if !p.publishUntilAcked(head) {
			return
		}
		p.mu.Lock()
		p.queue = p.queue[1:]
		p.acked++
		p.failure = ""
		done := 0
		for done < len(p.marks) && p.marks[done] <= p.acked {
			p.waiters[done] <- nil
			done++
		}
		p.waiters, p.marks = p.waiters[done:], p.marks[done:]
		p.mu.Unlock()
	}
}

func (p *publisher) publishUntilAcked(event outgoing) bool {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		_, err := p.js.Publish(ctx, event.subject, event.data, jetstream.WithMsgID(event.id))
		cancel()
		if err == nil {
			if attempt > 0 {
				p.log.Info("event published after retries", "eventId", event.id, "attempts", attempt+1)
			}
			return true
		}
		if p.ctx.Err() != nil {
			return false
		}
		reason := publishFailure(err)
		p.mu.Lock()
		p.failure = reason
		p.mu.Unlock()
		p.refuseWaiters(reason)
		delay := min(100*time.Millisecond<<min(attempt, 16), 5*time.Second)
		p.log.Warn("event publish failed; retrying", "eventId", event.id, "attempt", attempt, "delayMs", delay.Milliseconds(), "err", err.Error())
		select {
		case <-time.After(delay):
		case <-p.ctx.Done():
			return false
		}
	}
}

// refuseWaiters: every waiter waits on the head event, which is not acked, so its refusal is theirs.
func (p *publisher) refuseWaiters(reason string) {
	p.mu.Lock()
	waiters := p.waiters
	p.waiters, p.marks = nil, nil
	p.mu.Unlock()
	for _, ch := range waiters {
		ch <- eventsNotStored(reason, true)
	}
}

func publishFailure(err error) string {
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Description != "":
		return apiErr.Description
	case errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse):
		return "JetStream did not answer: no stream takes the events, or JetStream is unavailable"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		return "JetStream did not acknowledge the event in time"
	}
	return err.Error()
}

var storageFull = regexp.MustCompile(`(?i)maximum (bytes|messages)|insufficient (resources|storage)|storage (limit|exceeded)`)

// eventsNotStored is why a command's reply is an error: its events are not (yet) in the stream
// (ran), or events cannot be stored now, so it was not run.
func eventsNotStored(reason string, ran bool) *CommandError {
	what := "events cannot be stored now, so the command was not run; try again"
	if ran {
		what = "the command ran, but its events are not in the event stream yet; the engine pod keeps retrying them while it runs, " +
			"so they may still be stored and delivered later (once each), or never if the pod stops first"
	}
	code := hostapi.NotStored
	if storageFull.MatchString(reason) {
		code = hostapi.StorageFull
	}
	return &CommandError{Code: code, Message: fmt.Sprintf("the event could not be stored (%s): %s", reason, what), Details: map[string]any{"reason": reason}}
}
