package natshost

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard/engines/gows/internal/pacing"
)

// Config is what an engine pod reads from the environment the operator gives it
// (docs/architecture.md, "The engine pod"), the variables engine-pod/src/pod/config.ts reads.
type Config struct {
	Session         string
	NatsServers     []string
	NatsCredentials string // a .creds file's text; never logged
	PodName         string
	PodUID          string // the pod's uid: a restarted container takes back its pod's lease at once (lease.go)
	Metadata        map[string]string
	Apps            []json.RawMessage
	Settings        json.RawMessage // EngineSettings, the proxy's password put in
	HealthPort      int
	BaseURL         string
	Version         string
	// Sending is the session's paced-sending config at start (SWITCHBOARD_SENDING, SendingConfig
	// with its defaults); nil: off. Later changes come as host.sendQueue.setConfig.
	Sending *pacing.Config
	// Outbound: where files sent by URL may be downloaded from (SWITCHBOARD_OUTBOUND_DENY and _ALLOW over the built-in rules).
	Outbound *OutboundPolicy
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)

// ReadConfig checks every variable and reports all that are wrong at once, each by name.
func ReadConfig(getenv func(string) string) (Config, error) {
	var problems []string
	bad := func(name, format string, args ...any) {
		problems = append(problems, name+": "+fmt.Sprintf(format, args...))
	}
	cfg := Config{Session: getenv("SWITCHBOARD_SESSION"), PodName: getenv("SWITCHBOARD_POD_NAME"), PodUID: getenv("SWITCHBOARD_POD_UID"), HealthPort: 8080, BaseURL: "http://localhost:3000"}
	if !sessionName.MatchString(cfg.Session) {
		bad("SWITCHBOARD_SESSION", "must be 1-63 characters: letters, digits, \"_\" or \"-\", starting with a letter or digit, got %q", cfg.Session)
	}
	if engine := getenv("SWITCHBOARD_ENGINE"); engine != "" && engine != "GOWS" {
		bad("SWITCHBOARD_ENGINE", "this binary runs GOWS only, got %q", engine)
	}
	for _, server := range strings.Split(getenv("SWITCHBOARD_NATS_URL"), ",") {
		if server = strings.TrimSpace(server); server != "" {
			cfg.NatsServers = append(cfg.NatsServers, server)
		}
	}
	if len(cfg.NatsServers) == 0 {
		bad("SWITCHBOARD_NATS_URL", "must name at least one server, e.g. nats://nats:4222")
	}
	if creds := getenv("SWITCHBOARD_NATS_CREDS"); creds != "" {
		if !strings.Contains(creds, "BEGIN NATS USER JWT") || !strings.Contains(creds, "BEGIN USER NKEY SEED") {
			bad("SWITCHBOARD_NATS_CREDS", "must be the text of a NATS credentials file (a user JWT and its nkey seed)")
		}
		cfg.NatsCredentials = creds
	}
	if cfg.PodName == "" {
		cfg.PodName, _ = os.Hostname()
	}
	if err := jsonVar(getenv("SWITCHBOARD_METADATA"), "{}", &cfg.Metadata); err != nil {
		bad("SWITCHBOARD_METADATA", "must be a JSON object of strings, e.g. {\"team\":\"sales\"}")
	}
	if err := jsonVar(getenv("SWITCHBOARD_APPS"), "[]", &cfg.Apps); err != nil {
		bad("SWITCHBOARD_APPS", "must be a JSON array of apps, e.g. [{\"app\":\"calls\"}]")
	}
	settings := map[string]any{}
	if err := jsonVar(getenv("SWITCHBOARD_ENGINE_SETTINGS"), "{}", &settings); err != nil {
		bad("SWITCHBOARD_ENGINE_SETTINGS", "must be a JSON object, e.g. {\"proxy\":{\"server\":\"proxy:3128\"}}")
	}
	if password := getenv("SWITCHBOARD_PROXY_PASSWORD"); password != "" {
		if proxy, ok := settings["proxy"].(map[string]any); ok {
			proxy["password"] = password
		}
	}
	cfg.Settings, _ = json.Marshal(settings)
	if raw := getenv("SWITCHBOARD_HEALTH_PORT"); raw != "" {
		port, err := strconv.Atoi(raw)
		if err != nil || port < 0 || port > 65535 {
			bad("SWITCHBOARD_HEALTH_PORT", "must be a whole number from 0 to 65535, got %q", raw)
		}
		cfg.HealthPort = port
	}
	if raw := getenv("SWITCHBOARD_BASE_URL"); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			bad("SWITCHBOARD_BASE_URL", "must be the gateway's public http(s) URL, e.g. https://api.example.com, got %q", raw)
		}
		cfg.BaseURL = strings.TrimRight(raw, "/")
	}
	if raw := getenv("SWITCHBOARD_SENDING"); raw != "" && raw != "null" {
		if config, err := decodeSendingConfig(json.RawMessage(raw), "sending"); err != nil {
			bad("SWITCHBOARD_SENDING", "must be the session's SendingConfig as JSON, e.g. {\"perMinute\":20}: %s", err.Error())
		} else {
			cfg.Sending = &config
		}
	}
	outbound, err := NewOutboundPolicy(getenv(outboundDenyVariable), getenv(outboundAllowVariable))
	if err != nil {
		problems = append(problems, err.Error())
	}
	cfg.Outbound = outbound
	if len(problems) > 0 {
		return cfg, fmt.Errorf("invalid engine pod configuration:\n  %s", strings.Join(problems, "\n  "))
	}
	return cfg, nil
}

func jsonVar(raw, fallback string, into any) error {
	if raw == "" {
		raw = fallback
	}
	return json.Unmarshal([]byte(raw), into)
}
