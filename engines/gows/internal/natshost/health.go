package natshost

import (
	"net"
	"net/http"
	"strconv"
)

// startHealth serves the kubelet's probes and Prometheus's scrape (engine-pod/src/pod/health-server.ts):
// `/healthz` 200 while the process serves at all (a pod waiting for the lease is healthy),
// `/readyz` 200 only while ready() holds (this pod owns the session and its engine runs),
// `/metrics` what metrics renders (metrics.go), on the same port so the pod opens no other.
func startHealth(port int, ready func() bool, metrics func() string) (*http.Server, int, error) {
	listener, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return nil, 0, err
	}
	answer := func(w http.ResponseWriter, status int, text string) {
		w.Header().Set("content-type", "text/plain")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(text + "\n"))
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			answer(w, http.StatusOK, "ok")
		case "/metrics":
			w.Header().Set("content-type", "text/plain; version=0.0.4; charset=utf-8")
			_, _ = w.Write([]byte(metrics()))
		case "/readyz":
			if ready() {
				answer(w, http.StatusOK, "ok")
			} else {
				answer(w, http.StatusServiceUnavailable, "not ready")
			}
		default:
			answer(w, http.StatusNotFound, "not found")
		}
	})}
	go func() { _ = server.Serve(listener) }()
	return server, listener.Addr().(*net.TCPAddr).Port, nil
}
