package natshost

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// newEventID is `evt_` + lower-case ULID, monotonic within the process, as engine-pod/src/event-ids.ts
// makes them: ids sort in the order events were made even within one millisecond.
func newEventID(at time.Time) string {
	idMu.Lock()
	defer idMu.Unlock()
	return "evt_" + strings.ToLower(ulid.MustNew(ulid.Timestamp(at), idEntropy).String())
}

// decodeNumbers decodes JSON keeping numbers as written (json.Number): large ids and timestamps
// go out as they came in.
func decodeNumbers(raw []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	return decoder.Decode(into)
}
