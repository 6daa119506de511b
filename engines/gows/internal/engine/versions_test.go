package engine

import (
	"strings"
	"testing"

	"go.mau.fi/whatsmeow/store"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The version a session presents is the one its handshake carries: whatsmeow's SetWAVersion alone
// leaves the ClientPayload's app version at what it loaded with.
func TestPresentVersionIsWhatTheHandshakeCarries(t *testing.T) {
	t.Cleanup(func() { presentVersion(libraryDefaultVersion) })
	version, err := parseClientVersion("2.3000.1023456789")
	if err != nil {
		t.Fatal(err)
	}
	presentVersion(version)
	if got := presentedAppVersion(); got != "2.3000.1023456789" {
		t.Errorf("presented %s, want 2.3000.1023456789", got)
	}
	if got := store.GetWAVersion().String(); got != "2.3000.1023456789" {
		t.Errorf("whatsmeow's version %s, want 2.3000.1023456789", got)
	}
	// The module version comes from the binary's build info, which a test binary lacks: the
	// gateway's and the e2e tests check it against go.mod on the built binary.
	if v := versions(); v.Library.Name != "whatsmeow" || v.Client != "2.3000.1023456789" {
		t.Errorf("versions %+v: want whatsmeow and the version presented", v)
	}
}

// A session's setting wins over the engine's variable, which wins over whatsmeow's own.
func TestPresentedVersionOrder(t *testing.T) {
	engineVersion, _ := parseClientVersion("2.3000.2")
	e := &Engine{cfg: Config{ClientVersion: &engineVersion}}
	session := rpcschema.ClientVersion("2.3000.3")
	for _, tc := range []struct {
		name     string
		engine   *Engine
		settings rpcschema.StartParamsSettings
		want     string
	}{
		{"session", e, rpcschema.StartParamsSettings{ClientVersion: &session}, "2.3000.3"},
		{"engine", e, rpcschema.StartParamsSettings{}, "2.3000.2"},
		{"library", &Engine{}, rpcschema.StartParamsSettings{}, libraryDefaultVersion.String()},
	} {
		got, err := tc.engine.presentedVersion(tc.settings)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, got.String(), err, tc.want)
		}
	}
}

func TestClientVersionVariableIsChecked(t *testing.T) {
	_, err := readConfig(func(name string) string {
		if name == clientVersionVariable {
			return "2.3000"
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), clientVersionVariable) {
		t.Errorf("err %v, want one naming %s", err, clientVersionVariable)
	}
}
