package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

// The engine RPC of PROTOCOL.md: newline-delimited JSON-RPC 2.0 over stdin and stdout, requests
// and notifications in both directions.

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcErrorObject `json:"error,omitempty"`
}

type rpcErrorObject struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CommandError is a refusal with the protocol's code (hostapi.Code), carried in a JSON-RPC error's
// `data` (PROTOCOL.md).
type CommandError = hostapi.CommandError

func commandError(code hostapi.Code, format string, args ...any) *CommandError {
	return &CommandError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// RemoteError is the host's answer to one of the engine's requests when it failed.
type RemoteError struct {
	Code    int
	Message string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("host error %d: %s", e.Code, e.Message) }

var errPeerClosed = errors.New("engine RPC closed")

// Handler answers one host request; an unknown method returns errUnknownMethod.
type Handler func(ctx context.Context, method string, params any) (any, error)

var errUnknownMethod = errors.New("unknown method")

type Peer struct {
	out     io.Writer
	writeMu sync.Mutex
	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan rpcMessage
	closed  chan struct{}
	handler Handler
	log     *Logger
}

func NewPeer(out io.Writer, handler Handler, log *Logger) *Peer {
	return &Peer{out: out, pending: map[string]chan rpcMessage{}, closed: make(chan struct{}), handler: handler, log: log}
}

// Serve reads messages until the input ends; host requests run concurrently, each in its goroutine.
func (p *Peer) Serve(ctx context.Context, in io.Reader) error {
	reader := bufio.NewReaderSize(in, 1<<16)
	defer func() {
		close(p.closed)
		p.mu.Lock()
		for id, ch := range p.pending {
			close(ch)
			delete(p.pending, id)
		}
		p.mu.Unlock()
	}()
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) > 1 {
			p.receive(ctx, line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func (p *Peer) receive(ctx context.Context, line []byte) {
	var msg rpcMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		p.log.Warn("engine RPC: a line that is not JSON", "err", err.Error())
		p.write(rpcMessage{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcErrorObject{Code: -32700, Message: "parse error"}})
		return
	}
	if msg.Method == "" {
		p.mu.Lock()
		ch := p.pending[string(msg.ID)]
		delete(p.pending, string(msg.ID))
		p.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
		return
	}
	go p.handle(ctx, msg)
}

func (p *Peer) handle(ctx context.Context, msg rpcMessage) {
	result, err := p.handler(ctx, msg.Method, msg.Params)
	if msg.ID == nil {
		if err != nil {
			p.log.Warn("engine RPC: notification failed", "method", msg.Method, "err", err.Error())
		}
		return
	}
	answer := rpcMessage{JSONRPC: "2.0", ID: msg.ID}
	if err != nil {
		answer.Error = toErrorObject(msg.Method, err)
	} else {
		raw, merr := json.Marshal(result)
		if merr != nil {
			answer.Error = toErrorObject(msg.Method, merr)
		} else {
			answer.Result = raw
		}
	}
	p.write(answer)
}

func toErrorObject(method string, err error) *rpcErrorObject {
	if errors.Is(err, errUnknownMethod) {
		return &rpcErrorObject{Code: -32601, Message: "method not found: " + method}
	}
	var ce *CommandError
	if !errors.As(err, &ce) {
		ce = &CommandError{Code: hostapi.EngineError, Message: err.Error()}
	}
	data, _ := json.Marshal(ce)
	return &rpcErrorObject{Code: -32000, Message: ce.Message, Data: data}
}

func (p *Peer) write(msg rpcMessage) {
	msg.JSONRPC = "2.0"
	raw, err := json.Marshal(msg)
	if err != nil {
		p.log.Error("engine RPC: cannot encode a message", "err", err.Error())
		return
	}
	raw = append(raw, '\n')
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.out.Write(raw); err != nil {
		p.log.Warn("engine RPC: cannot write", "err", err.Error())
	}
}

// Notify sends a notification to the host (status, me, event).
func (p *Peer) Notify(method string, params any) {
	raw, err := json.Marshal(params)
	if err != nil {
		p.log.Error("engine RPC: cannot encode params", "method", method, "err", err.Error())
		return
	}
	p.write(rpcMessage{Method: method, Params: raw})
}

// Call sends a request to the host and waits for its answer; result may be nil.
func (p *Peer) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	id := json.RawMessage(fmt.Sprintf("%d", p.nextID.Add(1)))
	ch := make(chan rpcMessage, 1)
	p.mu.Lock()
	select {
	case <-p.closed:
		p.mu.Unlock()
		return errPeerClosed
	default:
	}
	p.pending[string(id)] = ch
	p.mu.Unlock()
	p.write(rpcMessage{ID: id, Method: method, Params: raw})
	select {
	case answer, ok := <-ch:
		if !ok {
			return errPeerClosed
		}
		if answer.Error != nil {
			return &RemoteError{Code: answer.Error.Code, Message: answer.Error.Message}
		}
		if result != nil && len(answer.Result) > 0 {
			return json.Unmarshal(answer.Result, result)
		}
		return nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.pending, string(id))
		p.mu.Unlock()
		return ctx.Err()
	}
}
