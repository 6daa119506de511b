// Package hostapi is what the GOWS engine asks of its host, in either mode: in local mode the
// engine RPC's peer carries each call to the Node host as JSON-RPC (engine.RPCHost); in cluster
// mode the engine pod's host (natshost.Host) is called directly, in the same process, with no
// JSON in between. One interface, so the engine cannot tell which host it has.
package hostapi

import (
	"context"
	"encoding/json"
)

// Me is the paired account as events and the session show it: `<number>@c.us` and its push name.
type Me struct {
	ID       string `json:"id"`
	PushName string `json:"pushName"`
}

// SpooledFile is a received file the engine downloaded to its spool (PROTOCOL.md, media.save):
// the host streams it into the media store; the engine removes it afterwards.
type SpooledFile struct {
	Mimetype string `json:"mimetype"`
	Filename string `json:"filename,omitempty"`
	Path     string `json:"path"`
}

// Versions is what the engine runs, as the session's `versions` shows it beside its image: the
// library and its version, and the WhatsApp Web version the handshake presents.
type Versions struct {
	Library Library `json:"library"`
	Client  string  `json:"client"`
}

// Library names the library the engine is built on and its version.
type Library struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Host is the engine's host: where its status, account and events go, and where its auth state
// and received files are kept.
type Host interface {
	// SetStatus reports the session's status; reason says why a FAILED one failed.
	SetStatus(status, reason string)
	// SetMe reports the paired account; nil: none (unpaired, logged out).
	SetMe(me *Me)
	// SetVersions reports what the engine runs, at each start before it connects.
	SetVersions(versions Versions)
	// Emit sends one normalized event (spec part 6): its name and its payload, a JSON object.
	Emit(event string, payload any)
	// AuthGet reads the values of the ids of one type of the session's auth state.
	AuthGet(ctx context.Context, typ string, ids []string) (map[string]json.RawMessage, error)
	// AuthSet writes values by type and id, in order; a nil or JSON null value removes that id.
	AuthSet(ctx context.Context, data map[string]map[string]json.RawMessage) error
	// AuthClear forgets the session's whole auth state (logout).
	AuthClear(ctx context.Context) error
	// SaveMedia keeps a spooled file in the media store and answers the record's `media` object
	// as JSON, or nil when the host keeps none.
	SaveMedia(ctx context.Context, file SpooledFile) (json.RawMessage, error)
}
