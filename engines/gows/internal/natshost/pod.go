package natshost

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard/engines/gows/internal/pacing"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

const (
	flushTimeout = 10 * time.Second
	drainTimeout = 5 * time.Second
)

// Pod is one engine pod's life (engine-pod/src/pod/engine-pod.ts): the engine connects only after
// this pod holds the session's lease, and is stopped the moment the lease is lost.
//
// A lost lease (NATS out of reach, or JetStream not answering, for longer than its ttl) does not end
// the pod: its engine stops at once, the pod turns un-ready, waits for the lease as at its start,
// and starts the same host again from the stored pairing. Exiting would only have the kubelet
// restart the container into the same wait, and repeated exits end in CrashLoopBackOff's delays.
// The NATS connection, publisher, history and command subscription stay for the pod's life.
type Pod struct {
	cfg    Config
	log    Logger
	engine EngineFunc
	Host   *Host

	nc      *nats.Conn
	lease   *Lease
	events  *publisher
	history *history
	cmds    *commands
	// queue is the session's paced sending of the current lease term (nil between terms).
	queue *sendQueue
	// metrics are the queue's series, kept across lease terms (counters of the pod's life).
	metrics *queueMetrics
	health  interface{ Close() error }
	// lost carries a lease loss to the loop of startUp, once the engine has stopped.
	lost chan struct{}
	// leaseTiming overrides the lease's timings (tests, with a bucket made at the same ttl).
	leaseTiming *LeaseTiming
	mu          sync.Mutex
	started     bool
	stopping    bool
	acquiring   context.CancelFunc
	ended       chan int
}

// NewPod makes the pod; its Host is the engine's host (hostapi.Host), to attach before Run. checks hold every
// event to its protocol schema (NewEventChecks); operations route the commands (LoadOperations).
func NewPod(cfg Config, engine EngineFunc, checks *EventChecks, operations *Operations, log Logger) *Pod {
	platform := runtime.GOOS + "/" + map[string]string{"amd64": "x64", "386": "ia32"}[runtime.GOARCH]
	if platform[len(platform)-1] == '/' {
		platform += runtime.GOARCH
	}
	setup := rpcschema.StartParams{Session: cfg.Session}
	if len(cfg.Settings) > 0 {
		if err := json.Unmarshal(cfg.Settings, &setup.Settings); err != nil {
			log.Warn("the engine settings are not EngineSettings; starting without them", "err", err.Error())
		}
	}
	host := &Host{session: cfg.Session, engine: engine, log: log, setup: setup, status: "STOPPED", metadata: cfg.Metadata, checks: checks, operations: operations,
		env:  map[string]any{"tier": "CORE", "version": cfg.Version, "engine": "GOWS", "platform": platform, "worker": map[string]any{"id": cfg.PodName}},
		apps: &apps{engine: engine, log: log}}
	host.apps.set(cfg.Apps)
	useOutboundPolicy(cfg.Outbound)
	return &Pod{cfg: cfg, log: log, engine: engine, Host: host, ended: make(chan int, 1), lost: make(chan struct{}, 1), metrics: newQueueMetrics(cfg.Session)}
}

// Ready: this pod holds the lease and its engine runs.
func (p *Pod) Ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.stopping && p.started && p.lease != nil && p.lease.Held()
}

// Run starts the pod and returns the process's exit code once it has ended (ctx done: a clean stop).
func (p *Pod) Run(ctx context.Context) int {
	go func() {
		if err := p.startUp(); err != nil {
			p.mu.Lock()
			stopping := p.stopping
			p.mu.Unlock()
			if !stopping {
				p.log.Error("engine pod failed to start", "err", err.Error())
				p.terminate(1, "start-up failed")
			}
		}
	}()
	select {
	case <-ctx.Done():
		go p.terminate(0, "signal")
		return <-p.ended
	case code := <-p.ended:
		return code
	}
}

func (p *Pod) startUp() error {
	nc, err := connect(p.cfg, p.log, func(err error) {
		p.mu.Lock()
		stopping := p.stopping
		p.mu.Unlock()
		if !stopping {
			reason := "NATS connection closed"
			if err != nil {
				reason += ": " + err.Error()
			}
			go p.terminate(1, reason)
		}
	})
	if err != nil {
		return err
	}
	p.nc = nc
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// With credentials the pod may only use what the operator created for it: it binds.
	bind := p.cfg.NatsCredentials != ""
	if err := ensureEventStream(ctx, js, bind); err != nil {
		return err
	}
	p.events = newPublisher(js, p.log)
	authKV, err := openKV(ctx, nc, js, authBucket, 0, bind)
	if err != nil {
		return err
	}
	messagesKV, err := openKV(ctx, nc, js, messagesBucket, 0, bind)
	if err != nil {
		return err
	}
	p.history = newHistory(messagesKV, p.cfg.Session, p.log)
	timing := LeaseTiming{TTL: leaseTTL, Renew: leaseRenew, Retry: time.Second}
	if p.leaseTiming != nil {
		timing = *p.leaseTiming
	}
	leaseKV, err := openKV(ctx, nc, js, leaseBucket, timing.TTL, bind)
	if err != nil {
		return err
	}
	lease := newLease(leaseKV, p.cfg.Session, p.cfg.PodName, p.cfg.PodUID, p.log)
	lease.ttl, lease.renew, lease.retry = timing.TTL, timing.Renew, timing.Retry
	host := p.Host
	host.mayConnect = func() bool { return lease.Held() && !p.isStopping() }
	host.auth = authState{kv: authKV, session: p.cfg.Session}
	host.media = &mediaStore{nc: nc, js: js, session: p.cfg.Session, baseURL: p.cfg.BaseURL, bind: bind}
	host.publish = func(id, event string, envelope []byte, payload map[string]any) {
		p.events.publish(id, p.cfg.Session, event, envelope)
		p.history.record(event, payload)
	}
	p.mu.Lock()
	p.lease = lease
	p.mu.Unlock()
	server, port, err := startHealth(p.cfg.HealthPort, p.Ready, p.renderMetrics)
	if err != nil {
		return err
	}
	p.health = server
	p.log.Info("engine pod up; waiting for the session lease", "healthPort", port)

	lease.OnLost(p.pause)
	acquireCtx, stopAcquiring := context.WithCancel(context.Background())
	p.mu.Lock()
	p.acquiring = stopAcquiring
	stopping := p.stopping
	p.mu.Unlock()
	if stopping {
		stopAcquiring()
	}
	// Told from the engine's goroutine: the queue's KV write does not hold it up.
	host.working = func() {
		if queue := p.currentQueue(); queue != nil {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
				defer cancel()
				queue.working(ctx)
			}()
		}
	}
	sending := p.cfg.Sending
	for {
		if _, err := lease.Acquire(acquireCtx); err != nil {
			return nil // stopping
		}
		// Commands wait for the first lease; then they stay served, answered by a stopped host while it is lost.
		if p.cmds == nil {
			cmds := &commands{nc: nc, js: js, session: p.cfg.Session, host: host, events: p.events, log: p.log}
			if err := cmds.start(); err != nil {
				return err
			}
			p.mu.Lock()
			p.cmds = cmds
			p.mu.Unlock()
		}
		// The lease may have taken longer than the start-up's context: the queue gets its own.
		queueCtx, cancelQueue := context.WithTimeout(context.Background(), 30*time.Second)
		queue, err := p.startSendQueue(queueCtx, nc, js, bind, sending)
		cancelQueue()
		if err != nil {
			return err
		}
		host.Start(context.Background())
		p.mu.Lock()
		p.started = !p.stopping && lease.Held()
		p.mu.Unlock()
		status, _, _, _ := host.Status()
		p.log.Info("engine started", "engine", "GOWS", "fencingToken", lease.FencingToken(), "status", status)
		select {
		case <-p.lost:
		case <-acquireCtx.Done():
			return nil
		}
		// pause began its stop; the next term reads the queue back, paced as this one was last.
		queue.close()
		sending = queue.configured()
	}
}

// LeaseTiming is the lease's ttl, renewal period and retry period; it must match the leases bucket's ttl.
type LeaseTiming struct{ TTL, Renew, Retry time.Duration }

// WithLeaseTiming shortens the lease's timings (tests); call before Run.
func (p *Pod) WithLeaseTiming(timing LeaseTiming) *Pod {
	p.leaseTiming = &timing
	return p
}

func (p *Pod) isStopping() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopping
}

// startSendQueue opens the session's paced sending for a lease term: its queue as the last holder
// left it (this pod in an earlier term, or another pod), a send left `sending` settled by the
// history, then its lane, paced by config (the pod's start, or what setConfig made it last term).
func (p *Pod) startSendQueue(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, bind bool, config *pacing.Config) (*sendQueue, error) {
	bucket, err := openKV(ctx, nc, js, sendQueuesBucket, 0, bind)
	if err != nil {
		return nil, err
	}
	queue := newSendQueue(newSendQueueStore(bucket, p.cfg.Session, p.lease.FencingToken), p.cfg.Session, p.log)
	queue.config = config
	queue.execute = p.cmds.executeStored
	queue.alreadySent = p.history.wentOut
	queue.leaseHeld = p.lease.Held
	queue.metrics = p.metrics
	if err := queue.start(ctx); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.queue = queue
	p.mu.Unlock()
	p.cmds.setQueue(queue)
	return queue, nil
}

// renderMetrics is the `/metrics` exposition: the queue's depth now, its waits and holds so far.
func (p *Pod) renderMetrics() string {
	depth := 0
	if queue := p.currentQueue(); queue != nil {
		depth = queue.store.count()
	}
	return p.metrics.render(depth)
}

// currentQueue is the send queue of the lease term under way, nil between terms.
func (p *Pod) currentQueue() *sendQueue {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queue
}

// pause: the lease is gone, and someone else may connect with these credentials once its ttl has
// run out. The engine and the send queue stop first and at once (the lease calls this from its
// timer, not from the loop, which may still be starting them); then the loop of startUp waits
// for the lease again.
func (p *Pod) pause(reason string) {
	p.mu.Lock()
	p.started = false
	queue := p.queue
	p.queue = nil
	cmds := p.cmds
	p.mu.Unlock()
	if cmds != nil {
		cmds.setQueue(nil)
	}
	if queue != nil {
		queue.halt()
	}
	p.Host.Stop(context.Background())
	p.log.Warn("engine stopped: session lease lost; waiting for it again", "reason", reason)
	select {
	case p.lost <- struct{}{}:
	default:
	}
}

func (p *Pod) terminate(exitCode int, reason string) {
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		return
	}
	p.stopping = true
	p.started = false
	if p.acquiring != nil {
		p.acquiring()
	}
	queue := p.queue
	p.mu.Unlock()
	p.log.Info("engine pod stopping", "reason", reason)
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout+drainTimeout)
	defer cancel()
	p.mu.Lock()
	cmds := p.cmds
	p.mu.Unlock()
	// The queue first: its waiting submits answer with their sends queued, for the next holder.
	if queue != nil {
		queue.close()
	}
	if cmds != nil {
		cmds.close()
	}
	p.Host.Stop(ctx)
	if p.history != nil {
		p.history.close()
	}
	if p.events != nil {
		if !p.events.flush(flushTimeout) {
			p.log.Error("events not acked before shutdown")
		}
		p.events.close()
	}
	// A lost lease is not ours to delete; a clean stop hands it over without waiting for the ttl.
	if exitCode == 0 && p.lease != nil {
		p.lease.Release(ctx)
	}
	if p.health != nil {
		_ = p.health.Close()
	}
	if p.nc != nil && !p.nc.IsClosed() {
		done := make(chan struct{})
		go func() {
			_ = p.nc.Drain()
			for !p.nc.IsClosed() {
				time.Sleep(10 * time.Millisecond)
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(drainTimeout):
			p.nc.Close()
		}
	}
	p.log.Info("engine pod stopped", "exitCode", exitCode)
	p.ended <- exitCode
}
