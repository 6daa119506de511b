package natshost

import (
	"context"
	"testing"
	"time"
)

// A command's engine method runs under the request's context, which carries the command's
// deadline (no one reads a reply after it), not under a context that never ends; the restart of
// host.logout outlives it.
func TestCommandsRunUnderTheirDeadline(t *testing.T) {
	var published [][]byte
	deadlines := map[string]time.Time{}
	engine := func(ctx context.Context, method string, _ any) (any, error) {
		deadline, ok := ctx.Deadline()
		if !ok {
			deadline = time.Time{}
		}
		deadlines[method] = deadline
		return nil, nil
	}
	host := testHost(t, engine, &published)
	host.Start(context.Background())
	host.SetStatus("WORKING", "")
	c := &commands{session: "s1", host: host, log: nopLog{}, events: newPublisher(nil, nopLog{})}
	before := time.Now()
	if reply := c.handle([]byte(`{"op":"chat.typing","args":{"chatId":"1@c.us","typing":true}}`), nil); !reply.OK {
		t.Fatalf("chat.typing: %+v", reply.Error)
	}
	deadline := deadlines["setTyping"]
	if deadline.IsZero() || deadline.Before(before.Add(commandDeadline)) || deadline.After(time.Now().Add(commandDeadline)) {
		t.Errorf("setTyping ran with the deadline %v; want the command's, %v after it came", deadline, commandDeadline)
	}
	if reply := c.handle([]byte(`{"op":"host.logout"}`), nil); !reply.OK {
		t.Fatalf("host.logout: %+v", reply.Error)
	}
	if deadlines["logout"].IsZero() {
		t.Errorf("logout ran without the command's deadline")
	}
	if !deadlines["start"].IsZero() {
		t.Errorf("the restart after host.logout has the command's deadline %v; it must outlive the reply", deadlines["start"])
	}
}
