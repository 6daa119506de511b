package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	waLog "go.mau.fi/whatsmeow/util/log"
)

// Logger writes one JSON object per line to stderr: {"level","msg",...fields}; the host forwards
// each line to its own logger.
type Logger struct {
	out    io.Writer
	mu     *sync.Mutex
	module string
	debug  bool
	// fields go on every line (With): the session and pod in nats mode.
	fields []any
}

func NewLogger(out io.Writer, debug bool) *Logger {
	return &Logger{out: out, mu: &sync.Mutex{}, debug: debug}
}

func (l *Logger) log(level, msg string, kv ...any) {
	entry := map[string]any{"level": level, "msg": msg, "time": time.Now().UTC().Format(time.RFC3339Nano)}
	if l.module != "" {
		entry["module"] = l.module
	}
	kv = append(append([]any(nil), l.fields...), kv...)
	for i := 0; i+1 < len(kv); i += 2 {
		if key, ok := kv[i].(string); ok {
			entry[key] = kv[i+1]
		}
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		raw = []byte(fmt.Sprintf(`{"level":"error","msg":%q}`, "cannot encode a log line: "+err.Error()))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.out.Write(append(raw, '\n'))
}

func (l *Logger) Info(msg string, kv ...any)  { l.log("info", msg, kv...) }
func (l *Logger) Warn(msg string, kv ...any)  { l.log("warn", msg, kv...) }
func (l *Logger) Error(msg string, kv ...any) { l.log("error", msg, kv...) }

// whatsmeow's logger interface.

func (l *Logger) Warnf(msg string, args ...any)  { l.log("warn", fmt.Sprintf(msg, args...)) }
func (l *Logger) Errorf(msg string, args ...any) { l.log("error", fmt.Sprintf(msg, args...)) }
func (l *Logger) Infof(msg string, args ...any)  { l.log("info", fmt.Sprintf(msg, args...)) }
func (l *Logger) Debugf(msg string, args ...any) {
	if l.debug {
		l.log("debug", fmt.Sprintf(msg, args...))
	}
}

func (l *Logger) Sub(module string) waLog.Logger {
	name := module
	if l.module != "" {
		name = l.module + "/" + module
	}
	return &Logger{out: l.out, mu: l.mu, module: name, debug: l.debug, fields: l.fields}
}

// With is this logger with fields on every line.
func (l *Logger) With(kv ...any) *Logger {
	return &Logger{out: l.out, mu: l.mu, module: l.module, debug: l.debug, fields: append(append([]any(nil), l.fields...), kv...)}
}
