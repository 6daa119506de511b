package hostapi

// Code is one of protocol's CommandErrorCode values (protocol/src/commands.ts), carried in
// engine-rpc.schema.json: the one error vocabulary of the Go engine, its host and the TypeScript
// side. TestCodesAreTheProtocols holds Codes to the schema's enum.
type Code string

const (
	// Invalid: the request is malformed or names something that cannot be (HTTP 400).
	Invalid Code = "INVALID"
	// NotFound: it names a chat, message, group or call that does not exist (404).
	NotFound Code = "NOT_FOUND"
	// WrongStatus: the session's status does not allow it now (422).
	WrongStatus Code = "WRONG_STATUS"
	// NotSupported: the engine cannot do it in any status (422).
	NotSupported Code = "NOT_SUPPORTED"
	// EngineError: the engine or the messaging service failed (500).
	EngineError Code = "ENGINE_ERROR"
	// NotStored: its events could not be stored in time (503).
	NotStored Code = "NOT_STORED"
	// StorageFull: nothing more can be stored (507).
	StorageFull Code = "STORAGE_FULL"
	// QueueFull: the session's send queue holds its maxQueued (429, details QueueFullDetails).
	QueueFull Code = "QUEUE_FULL"
	// Conflict: a send with this id waits already, or it was cancelled while waited for (409).
	Conflict Code = "CONFLICT"
)

// Codes is every Code, in the protocol's order.
var Codes = []Code{Invalid, NotFound, WrongStatus, NotSupported, EngineError, NotStored, StorageFull, QueueFull, Conflict}

// CommandError is a command's refusal or failure with the protocol's code: what the engine returns,
// what the engine RPC carries in an error's `data.code`, and what the engine pod replies.
type CommandError struct {
	Code    Code           `json:"code"`
	Message string         `json:"-"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *CommandError) Error() string { return string(e.Code) + ": " + e.Message }
