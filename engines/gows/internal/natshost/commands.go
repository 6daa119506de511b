package natshost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

const commandObjectHeader = "Sb-Command-Object"

// commandDeadline is how long one command's handling may take: the command channel's timeout
// (gateway/src/cluster/session-commands.ts, operator/src/reconcile/finalizer.ts), past which no
// one reads its reply, so the engine stops waiting on the service for it.
const commandDeadline = 10 * time.Second

// commands is cluster mode's command channel (engine-pod/src/cluster/command-server.ts): it
// answers NATS requests on `sb.cmd.<session>` with a CommandReply, concurrently, lifecycle
// commands (logout) one at a time.
type commands struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	session string
	host    *Host
	events  *publisher
	// queue is the session's paced sending (host.sendQueue.*) of the lease term under way, nil
	// between terms; queueMu guards it, as the pod's loop sets it while commands run.
	queueMu   sync.Mutex
	queue     *sendQueue
	log       Logger
	sub       *nats.Subscription
	inFlight  sync.WaitGroup
	lifecycle sync.Mutex
}

type sessionCommand struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

type replyError struct {
	Code    hostapi.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

type commandReply struct {
	OK     bool        `json:"ok"`
	Result any         `json:"result,omitempty"`
	Error  *replyError `json:"error,omitempty"`
}

func (c *commands) start() error {
	sub, err := c.nc.Subscribe("sb.cmd."+c.session, func(msg *nats.Msg) {
		c.inFlight.Add(1)
		go func() {
			defer c.inFlight.Done()
			reply := c.handle(msg.Data, msg.Header)
			if msg.Reply == "" {
				return
			}
			raw, _ := json.Marshal(reply)
			if err := msg.Respond(raw); err != nil {
				c.log.Warn("command reply not sent", "err", err.Error())
			}
		}()
	})
	c.sub = sub
	if err != nil {
		return err
	}
	// The server has the subscription before the pod says it is ready: a command sent the moment
	// /readyz answers finds its responder (without it, "no responders" under load).
	return c.nc.Flush()
}

// close stops taking commands, then waits for the ones already taken to be answered.
func (c *commands) close() {
	if c.sub != nil {
		_ = c.sub.Drain()
		for c.sub.IsValid() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	c.inFlight.Wait()
}

// handle answers one request: its handling, the engine's methods included, runs under a context
// with the command's deadline.
func (c *commands) handle(data []byte, header nats.Header) commandReply {
	ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
	defer cancel()
	return c.answer(ctx, data, header)
}

// answer never fails: every failure is a CommandReply.
func (c *commands) answer(ctx context.Context, data []byte, header nats.Header) commandReply {
	result, err := c.run(ctx, data, header)
	if err == nil {
		if result == nil {
			result = json.RawMessage("null")
		}
		return commandReply{OK: true, Result: result}
	}
	var refusal *CommandError
	if errors.As(err, &refusal) {
		return commandReply{Error: &replyError{Code: refusal.Code, Message: refusal.Message, Details: refusal.Details}}
	}
	c.log.Error("engine command failed", "err", err.Error())
	// The cause stays in the pod's log: a client gets the code and where to look, nothing internal.
	return commandReply{Error: &replyError{Code: hostapi.EngineError, Message: fmt.Sprintf("the engine of session '%s' failed; see its engine pod's log", c.session)}}
}

func (c *commands) run(ctx context.Context, data []byte, header nats.Header) (any, error) {
	if name := header.Get(commandObjectHeader); name != "" {
		taken, err := c.takeObject(ctx, name)
		if err != nil {
			return nil, err
		}
		data = taken
	}
	var command sessionCommand
	if err := json.Unmarshal(data, &command); err != nil {
		return nil, &CommandError{Code: hostapi.Invalid, Message: "command is not JSON", Details: issues("command", "not valid JSON")}
	}
	args := command.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	} else if trimmed := bytes.TrimSpace(args); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, &CommandError{Code: hostapi.Invalid, Message: "invalid command: args: must be an object", Details: issues("args", "must be an object")}
	}
	switch command.Op {
	case "":
		return nil, &CommandError{Code: hostapi.Invalid, Message: "invalid command: op: required", Details: issues("op", "required")}
	case "host.status":
		status, recent, me, failure := c.host.Status()
		answer := map[string]any{"status": status, "statuses": recent, "me": me}
		if me == nil {
			answer["me"] = nil
		}
		if failure != "" {
			answer["reason"] = failure
		}
		if versions := c.host.Versions(); versions != nil {
			answer["versions"] = versions
		}
		return answer, nil
	case "host.setMetadata":
		var p struct {
			Metadata map[string]string `json:"metadata"`
		}
		if err := json.Unmarshal(command.Args, &p); err != nil || p.Metadata == nil {
			return nil, &CommandError{Code: hostapi.Invalid, Message: "invalid command: args.metadata: must be an object of strings", Details: issues("args.metadata", "must be an object of strings")}
		}
		c.host.SetMetadata(p.Metadata)
		return nil, nil
	case "host.setApps":
		var p struct {
			Apps []json.RawMessage `json:"apps"`
		}
		if err := json.Unmarshal(command.Args, &p); err != nil {
			return nil, &CommandError{Code: hostapi.Invalid, Message: "invalid command: args.apps: must be an array of apps", Details: issues("args.apps", "must be an array of apps")}
		}
		c.host.apps.set(p.Apps)
		return nil, nil
	case "host.logout":
		c.lifecycle.Lock()
		defer c.lifecycle.Unlock()
		// Spec part 3, rule 4: the pod exists, so the session is running; it starts again unpaired.
		if err := c.host.Logout(ctx); err != nil {
			return nil, err
		}
		// The next pairing is a new account's: the warm-up starts again from its day 0.
		if queue := c.currentQueue(); queue != nil {
			if err := queue.store.forgetPairing(ctx); err != nil {
				c.log.Warn("the pairing date of the send queue was not forgotten", "err", err.Error())
			}
		}
		// The session runs on after the reply: its restart is not cut at the command's deadline.
		c.host.Stop(context.WithoutCancel(ctx))
		c.host.Start(context.WithoutCancel(ctx))
		return nil, nil
	case "me":
		_, _, me, _ := c.host.Status()
		return me, nil
	case "host.sendQueue.submit", "host.sendQueue.list", "host.sendQueue.cancel", "host.sendQueue.setConfig":
		return c.sendQueueCommand(ctx, command.Op, args)
	}
	return c.executeStored(ctx, command.Op, args)
}

func (c *commands) setQueue(queue *sendQueue) {
	c.queueMu.Lock()
	c.queue = queue
	c.queueMu.Unlock()
}

func (c *commands) currentQueue() *sendQueue {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	return c.queue
}

func (c *commands) sendQueueCommand(ctx context.Context, op string, args json.RawMessage) (any, error) {
	queue := c.currentQueue()
	if queue == nil {
		return nil, fmt.Errorf("%s while the send queue of session '%s' is not running (this pod does not hold the session's lease yet); try again", op, c.session)
	}
	switch op {
	case "host.sendQueue.submit":
		return queue.submit(ctx, args, c.admitPaced)
	case "host.sendQueue.list":
		return queue.list(args)
	case "host.sendQueue.cancel":
		return queue.cancel(ctx, args)
	default:
		return queue.configure(args)
	}
}

// admitPaced refuses at once what an unpaced send would be refused, so it is not queued to fail
// later: args that are not the op's (INVALID, every issue by path), an op GOWS does not serve.
func (c *commands) admitPaced(op string, args json.RawMessage) error {
	found, err := c.host.checks.pacedCommandIssues(op, args)
	if err != nil {
		return err
	}
	if len(found) > 0 {
		issues := make([]map[string]string, len(found))
		for i, issue := range found {
			issues[i] = map[string]string{"path": issue.Path, "reason": issue.Message}
		}
		return &CommandError{Code: hostapi.Invalid, Message: fmt.Sprintf("invalid command: %s: %s", found[0].Path, found[0].Message), Details: map[string]any{"issues": issues}}
	}
	_, err = c.supported(op)
	return err
}

// executeStored runs an engine command and answers once the events it made are stored (a reply
// must not report what the event stream does not have): a command's way, and a queued send's.
func (c *commands) executeStored(ctx context.Context, op string, args json.RawMessage) (any, error) {
	if failing := c.events.failing(); failing != "" {
		return nil, eventsNotStored(failing, false)
	}
	result, err := c.execute(ctx, op, args)
	if err != nil {
		return nil, err
	}
	if err := c.events.stored(5 * time.Second); err != nil {
		return nil, err
	}
	return result, nil
}

// supported is the catalog's refusal of an op GOWS does not serve (NOT_SUPPORTED).
func (c *commands) supported(name string) (Operation, error) {
	operation, served := c.host.operations.Lookup(name)
	if !served {
		return operation, &CommandError{Code: hostapi.NotSupported, Message: fmt.Sprintf("engine GOWS does not support %s (session '%s')", operation.Name, c.session),
			Details: map[string]any{"session": c.session, "engine": "GOWS"}}
	}
	return operation, nil
}

// execute is EngineHost.execute: the catalog's refusal, then the status the op needs, then the
// engine method protocol's OPERATIONS names, through the op's adapter if it has one (ops.go).
func (c *commands) execute(ctx context.Context, name string, args json.RawMessage) (any, error) {
	operation, err := c.supported(name)
	if err != nil {
		return nil, err
	}
	if operation.Method == nil {
		return nil, fmt.Errorf("op %s has no engine method: the host answers it before execute", name)
	}
	status, _, _, _ := c.host.Status()
	c.host.mu.Lock()
	running := c.host.running
	c.host.mu.Unlock()
	if !running || !slices.Contains(operation.Needs, status) {
		return nil, &CommandError{Code: hostapi.WrongStatus, Message: fmt.Sprintf("session '%s' is %s; this needs %s", c.session, status, strings.Join(operation.Needs, " or ")),
			Details: map[string]any{"session": c.session, "status": status, "expected": operation.Needs}}
	}
	adapter := adapters[name]
	var params any = args
	if adapter.params != nil {
		var err error
		if params, err = adapter.params(ctx, args); err != nil {
			return nil, err
		}
	}
	result, err := c.host.engine(ctx, *operation.Method, params)
	if err != nil {
		return nil, err
	}
	if adapter.result != nil {
		return adapter.result(result), nil
	}
	// The reply is JSON on NATS; a record's copy for it gets `mediaUrl` (the engine's own map may
	// still be on its way to the event stream, so it is not changed in place).
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(encoded, []byte(`"hasMedia"`)) {
		var record map[string]any
		if decodeNumbers(encoded, &record) == nil && record != nil {
			return withMediaURL(record), nil
		}
	}
	return json.RawMessage(encoded), nil
}

// takeObject reads and deletes the command object a request names (kube/src/nats/command-objects.ts);
// it must be this session's.
func (c *commands) takeObject(ctx context.Context, name string) ([]byte, error) {
	if !strings.HasPrefix(name, c.session+"/") {
		return nil, &CommandError{Code: hostapi.Invalid, Message: fmt.Sprintf("command object '%s' is not one of session '%s'", name, c.session)}
	}
	store := &objects{nc: c.nc, js: c.js, bucket: "sb_commands_" + sessionStoreToken(c.session)}
	data, err := store.take(ctx, name)
	if errors.Is(err, errNoObject) {
		return nil, &CommandError{Code: hostapi.Invalid, Message: fmt.Sprintf("command object '%s' is gone (expired, or taken already)", name)}
	}
	return data, err
}

func issues(path, reason string) map[string]any {
	return map[string]any{"issues": []map[string]string{{"path": path, "reason": reason}}}
}
