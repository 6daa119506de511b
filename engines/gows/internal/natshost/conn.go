package natshost

import (
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
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
