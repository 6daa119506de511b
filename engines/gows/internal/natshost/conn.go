package natshost

import (
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// The connection's liveness, NATS_LIVENESS in protocol/src/cluster.ts: a ping every 5 s, the
// connection given up after 3 unanswered, each reconnect attempt bounded by 5 s. With nats.go's
// defaults (2 minutes between pings) a pod cut off from NATS stayed on the dead connection after
// the cut had healed, until TCP's retransmission back-off let a packet through.
const (
	natsPingInterval   = 5 * time.Second
	natsMaxPingsOut    = 3
	natsConnectTimeout = 5 * time.Second
)

// connect opens the pod's NATS connection: replies to its requests come to its session's own
// inbox prefix (the one its NATS user may read), and it keeps reconnecting for ever, NATS being
// the pod's only way to the world.
func connect(cfg Config, log Logger, onClosed func(error)) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("engine-pod " + cfg.PodName),
		nats.CustomInboxPrefix("_INBOX.engine." + cfg.Session),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectWait(time.Second),
		nats.PingInterval(natsPingInterval),
		nats.MaxPingsOutstanding(natsMaxPingsOut),
		nats.Timeout(natsConnectTimeout),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("NATS disconnect") }),
		nats.ReconnectHandler(func(*nats.Conn) { log.Warn("NATS reconnect") }),
		nats.ClosedHandler(func(nc *nats.Conn) { onClosed(nc.LastError()) }),
	}
	if cfg.NatsCredentials != "" {
		jwt, err := nkeys.ParseDecoratedJWT([]byte(cfg.NatsCredentials))
		if err != nil {
			return nil, err
		}
		seed, err := nkeys.ParseDecoratedNKey([]byte(cfg.NatsCredentials))
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.UserJWT(func() (string, error) { return jwt, nil }, func(nonce []byte) ([]byte, error) { return seed.Sign(nonce) }))
	}
	nc, err := nats.Connect(strings.Join(cfg.NatsServers, ","), opts...)
	if err != nil {
		return nil, err
	}
	// RetryOnFailedConnect returns before the first connection: wait for it, as the Node pod does.
	for !nc.IsConnected() {
		if nc.IsClosed() {
			return nil, nats.ErrConnectionClosed
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nc, nil
}
