package engine

import (
	"fmt"
	"runtime/debug"

	"go.mau.fi/whatsmeow/store"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// clientVersionVariable sets the WhatsApp Web version every session of this engine presents
// (a session's `config.clientVersion` overrides it); unset: whatsmeow's own.
const clientVersionVariable = "SWITCHBOARD_GOWS_CLIENT_VERSION"

const whatsmeowModule = "go.mau.fi/whatsmeow"

// libraryDefaultVersion is whatsmeow's built-in version, read before anything sets another:
// SetWAVersion is process-wide, so a start without a setting must put this one back.
var libraryDefaultVersion = store.GetWAVersion()

// parseClientVersion reads a configured client version; whatsmeow's parser takes what the host
// validated (protocol's ClientVersion: three numbers, each a uint32).
func parseClientVersion(raw string) (store.WAVersionContainer, error) {
	version, err := store.ParseVersion(raw)
	if err != nil {
		return version, fmt.Errorf("%s: %w", clientVersionVariable, err)
	}
	return version, nil
}

// presentedVersion is the version a session presents: its setting, else the engine's, else whatsmeow's.
func (e *Engine) presentedVersion(settings rpcschema.StartParamsSettings) (store.WAVersionContainer, error) {
	if settings.ClientVersion != nil {
		version, err := store.ParseVersion(string(*settings.ClientVersion))
		if err != nil {
			return version, fmt.Errorf("config.clientVersion: %w", err)
		}
		return version, nil
	}
	if e.cfg.ClientVersion != nil {
		return *e.cfg.ClientVersion, nil
	}
	return libraryDefaultVersion, nil
}

// presentVersion makes version the one the handshake presents. One session per process, so
// whatsmeow's process-wide version is this session's. SetWAVersion alone changes the registration's
// build hash but not the ClientPayload's app version, which whatsmeow copied when it loaded: that
// is the one the service reads, so it is set too.
func presentVersion(version store.WAVersionContainer) {
	store.SetWAVersion(version)
	store.BaseClientPayload.UserAgent.AppVersion = version.ProtoAppVersion()
}

// versions is what the engine reports it runs (hostapi.Host.SetVersions): whatsmeow's module
// version from the binary's build info (what `go version -m` shows), and the client version presented now.
func versions() hostapi.Versions {
	return hostapi.Versions{Library: hostapi.Library{Name: "whatsmeow", Version: moduleVersion(whatsmeowModule)}, Client: presentedAppVersion()}
}

// moduleVersion is the version of a module the binary was built with, "unknown" without build info.
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == path {
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}

// clientOutdatedReason is the FAILED reason of a 405 connect failure: the service has retired
// the version presented, and only another version (a setting) helps. NOWEB says the same.
func clientOutdatedReason(version string) string {
	return "client_outdated: the service refused client version " + version + " (405); set another with config.clientVersion or " + clientVersionVariable
}

// presentedAppVersion is the app version the next handshake carries, as "2.3000.1023456789".
func presentedAppVersion() string {
	app := store.BaseClientPayload.GetUserAgent().GetAppVersion()
	return fmt.Sprintf("%d.%d.%d", app.GetPrimary(), app.GetSecondary(), app.GetTertiary())
}
