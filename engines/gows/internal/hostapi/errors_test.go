package hostapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/switchboard/engines/gows"
)

// The Go codes are protocol's CommandErrorCode, as the generated schema carries it (RpcErrorData):
// a code added to or renamed in protocol fails here, naming both lists.
func TestCodesAreTheProtocols(t *testing.T) {
	var doc struct {
		Defs struct {
			RpcErrorData struct {
				Properties struct {
					Code struct {
						Enum []Code `json:"enum"`
					} `json:"code"`
				} `json:"properties"`
			} `json:"RpcErrorData"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(gows.RPCSchema, &doc); err != nil {
		t.Fatal(err)
	}
	protocol := doc.Defs.RpcErrorData.Properties.Code.Enum
	if len(protocol) == 0 || !slices.Equal(protocol, Codes) {
		t.Errorf("protocol's CommandErrorCode is %v; hostapi.Codes is %v", protocol, Codes)
	}
}
