package engine

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/switchboard/engines/gows/internal/hostapi"
	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// Config is what the child reads from its environment (PROTOCOL.md, Framing).
type Config struct {
	Session      string
	WebsocketURL string
	CertRootKey  *[32]byte
	MediaHost    string
	MediaCA      string
	// MediaMaxBytes: the largest received file kept (SWITCHBOARD_MEDIA_MAX_BYTES, media-spool.go).
	MediaMaxBytes int64
	// MediaSpool: where received files are downloaded to before the host keeps them
	// (SWITCHBOARD_GOWS_MEDIA_SPOOL, which the local host sets; else the system's temporary folder).
	MediaSpool string
	// ClientVersion: the WhatsApp Web version sessions present (SWITCHBOARD_GOWS_CLIENT_VERSION,
	// versions.go); nil: whatsmeow's.
	ClientVersion *store.WAVersionContainer
	// SilenceTimeout: the bound within which a silent connection is reconnected
	// (SWITCHBOARD_SILENCE_TIMEOUT_MS, silence.go).
	SilenceTimeout time.Duration
}

func readConfig(getenv func(string) string) (Config, error) {
	cfg := Config{Session: getenv("SWITCHBOARD_SESSION"), WebsocketURL: getenv("SWITCHBOARD_GOWS_WS_URL"), MediaHost: getenv("SWITCHBOARD_GOWS_MEDIA_HOST"), MediaCA: getenv("SWITCHBOARD_GOWS_MEDIA_CA"), MediaSpool: getenv(mediaSpoolVariable)}
	if cfg.MediaSpool == "" {
		cfg.MediaSpool = os.TempDir()
	}
	maxBytes, err := mediaMaxBytes(getenv(mediaMaxBytesVariable))
	if err != nil {
		return cfg, err
	}
	cfg.MediaMaxBytes = maxBytes
	if cfg.SilenceTimeout, err = parseSilenceTimeout(getenv(silenceTimeoutVariable)); err != nil {
		return cfg, err
	}
	if raw := getenv(clientVersionVariable); raw != "" {
		version, err := parseClientVersion(raw)
		if err != nil {
			return cfg, err
		}
		cfg.ClientVersion = &version
	}
	if raw := getenv("SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY"); raw != "" {
		key, err := hex.DecodeString(raw)
		if err != nil || len(key) != 32 {
			return cfg, fmt.Errorf("SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY must be 32 bytes in hex, got %q", raw)
		}
		root := [32]byte(key)
		cfg.CertRootKey = &root
	}
	return cfg, nil
}

// Engine is one session's whatsmeow client, driven by the host's requests.
type Engine struct {
	log    *Logger
	cfg    Config
	cfgErr error
	host   hostapi.Host

	mu       sync.Mutex
	kv       *KV
	store    *Store
	client   *whatsmeow.Client
	qrCode   string
	status   string
	stopped  bool
	settings rpcschema.StartParamsSettings
	cancelQR context.CancelFunc
	// life: the context of the I/O no request carries (whatsmeow's event handlers), cancelled by
	// stop; endLife cancels it.
	life     context.Context
	endLife  context.CancelFunc
	unread   unreadMessages
	calls    calls
	polls    pollOptions
	recent   recentMessages
	statuses sentStatuses
	heard    heardPresences
	// working: connected and logged in; WORKING is announced once the push name is known.
	working      bool
	workingTimer *time.Timer
	// archivedChats: each chat's archived state last reported (`chat.archive` once per change).
	archivedChats map[string]bool
	// labelsMu: one change of the label book at a time; labelOpsMu: one label operation at a time (labels.go).
	labelsMu   sync.Mutex
	labelOpsMu sync.Mutex
}

// pushNameWait is how long WORKING waits for the account's name after pairing (NOWEB's PUSH_NAME_WAIT_MS).
const pushNameWait = 1500 * time.Millisecond

func (e *Engine) announceWorking() {
	e.mu.Lock()
	if e.workingTimer != nil {
		e.workingTimer.Stop()
		e.workingTimer = nil
	}
	ready := e.working && !e.stopped && e.status != "WORKING"
	e.mu.Unlock()
	if ready {
		e.setStatus("WORKING", "")
	}
}

func NewEngine(log *Logger, getenv func(string) string) *Engine {
	cfg, err := readConfig(getenv)
	if cfg.CertRootKey != nil {
		log.Warn("SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY is set: the server's certificate chain is checked against a test root key, not WhatsApp's")
		whatsmeow.WACertPubKey = *cfg.CertRootKey
	}
	if cfg.WebsocketURL != "" {
		log.Info("connecting to a configured WhatsApp server", "url", cfg.WebsocketURL)
	}
	if err == nil {
		pingWithin(cfg.SilenceTimeout)
	}
	return &Engine{log: log, cfg: cfg, cfgErr: err}
}

// Attach gives the engine its host (hostapi.Host): RPCHost in stdio mode, the engine pod's Host
// in nats mode (natshost).
func (e *Engine) Attach(host hostapi.Host) {
	e.host = host
	e.kv = NewKV(host)
	e.store = NewStore(e.kv, e.log.Sub("Store"))
}

func (e *Engine) setStatus(status, reason string) {
	e.mu.Lock()
	e.status = status
	e.mu.Unlock()
	e.host.SetStatus(status, reason)
}

func (e *Engine) emit(event string, payload any) {
	e.host.Emit(event, payload)
}

// httpClient connects whatsmeow to the configured server: its websocket URL is a constant, so
// the dialers ignore the address it asks for and dial the configured host and port (plain TCP
// for ws://, TLS for wss://).
func (e *Engine) httpClient() (*http.Client, error) {
	u, err := url.Parse(e.cfg.WebsocketURL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return nil, fmt.Errorf("SWITCHBOARD_GOWS_WS_URL must be a ws:// or wss:// URL, got %q", e.cfg.WebsocketURL)
	}
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "ws" {
			host = net.JoinHostPort(u.Hostname(), "80")
		} else {
			host = net.JoinHostPort(u.Hostname(), "443")
		}
	}
	dialer := &net.Dialer{Timeout: 20 * time.Second}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return dialer.DialContext(ctx, "tcp", host) }
	transport := &http.Transport{DialContext: dial, ForceAttemptHTTP2: false}
	if u.Scheme == "ws" {
		transport.DialTLSContext = dial
	} else {
		transport.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			d := &tls.Dialer{NetDialer: dialer, Config: &tls.Config{ServerName: u.Hostname()}}
			return d.DialContext(ctx, "tcp", host)
		}
	}
	return &http.Client{Transport: transport}, nil
}

func (e *Engine) start(ctx context.Context, p rpcschema.StartParams) error {
	if e.cfgErr != nil {
		return &CommandError{Code: hostapi.EngineError, Message: e.cfgErr.Error()}
	}
	e.mu.Lock()
	if e.client != nil {
		e.mu.Unlock()
		return nil
	}
	e.beginRun()
	e.settings = p.Settings
	e.mu.Unlock()
	version, err := e.presentedVersion(p.Settings)
	if err != nil {
		return &CommandError{Code: hostapi.EngineError, Message: err.Error()}
	}
	presentVersion(version)
	// Before connecting: every status from here on is this version's.
	e.host.SetVersions(versions())
	if err := e.kv.Load(ctx); err != nil {
		return fmt.Errorf("could not read the auth state: %w", err)
	}
	device, err := e.store.Device()
	if err != nil {
		return fmt.Errorf("could not read the stored device: %w", err)
	}
	client := whatsmeow.NewClient(device, e.log.Sub("Client"))
	client.EnableAutoReconnect = true
	e.store.appStateRead = fullSyncEvents(client)
	if e.cfg.WebsocketURL != "" {
		httpClient, err := e.httpClient()
		if err != nil {
			return &CommandError{Code: hostapi.EngineError, Message: err.Error()}
		}
		client.SetWebsocketHTTPClient(httpClient)
		client.SetPreLoginHTTPClient(httpClient)
	}
	if e.cfg.MediaCA != "" {
		media, err := mediaHTTPClient(e.cfg.MediaCA)
		if err != nil {
			return &CommandError{Code: hostapi.EngineError, Message: err.Error()}
		}
		e.log.Warn("SWITCHBOARD_GOWS_MEDIA_CA is set: media servers are also trusted with a test certificate")
		client.SetMediaHTTPClient(media)
	}
	client.AddEventHandler(e.handleEvent)
	e.mu.Lock()
	e.client = client
	e.mu.Unlock()
	go e.connect(client)
	return nil
}

// connect connects, with a QR channel first when the device is not paired yet.
func (e *Engine) connect(client *whatsmeow.Client) {
	if client.Store.ID == nil {
		qrCtx, cancel := context.WithCancel(context.Background())
		e.mu.Lock()
		if e.cancelQR != nil {
			e.cancelQR()
		}
		e.cancelQR = cancel
		e.mu.Unlock()
		ch, err := client.GetQRChannel(qrCtx)
		if err != nil {
			e.log.Error("no QR channel", "err", err.Error())
		} else {
			go e.watchQR(client, ch)
		}
	}
	if err := client.Connect(); err != nil {
		e.log.Warn("could not connect", "err", err.Error())
		e.setStatus("FAILED", "could not connect: "+err.Error())
	}
}

func (e *Engine) watchQR(client *whatsmeow.Client, ch <-chan whatsmeow.QRChannelItem) {
	for item := range ch {
		switch item.Event {
		case whatsmeow.QRChannelEventCode:
			e.mu.Lock()
			e.qrCode = item.Code
			e.mu.Unlock()
			e.setStatus("SCAN_QR_CODE", "")
		case "success":
			e.mu.Lock()
			e.qrCode = ""
			e.mu.Unlock()
		case "timeout":
			// The codes ran out: the server closed; reconnect for new ones unless stopped.
			e.mu.Lock()
			e.qrCode = ""
			again := !e.stopped && e.client == client
			e.mu.Unlock()
			if again {
				go e.connect(client)
			}
		case whatsmeow.QRChannelEventError:
			e.log.Warn("pairing failed", "err", fmt.Sprint(item.Error))
		}
	}
}

// beginRun (under e.mu) opens a run of the engine: a start, the first or one after a stop in the
// same process (an engine pod that took its lease back).
func (e *Engine) beginRun() {
	e.stopped = false
	if e.endLife != nil {
		e.endLife()
	}
	e.life, e.endLife = context.WithCancel(context.Background())
}

func (e *Engine) stop() {
	e.mu.Lock()
	client := e.client
	e.client = nil
	e.stopped = true
	e.qrCode = ""
	// What this run reported ends with it (the host says STOPPED itself). stop removes whatsmeow's
	// handlers before it disconnects, so no Disconnected resets these: left as they were, the next
	// run's WORKING was taken for one already said and never reported (announceWorking), and the
	// session read STARTING for good after a lease taken back.
	e.working = false
	e.status = "STOPPED"
	if e.workingTimer != nil {
		e.workingTimer.Stop()
		e.workingTimer = nil
	}
	if e.endLife != nil {
		e.endLife()
	}
	if e.cancelQR != nil {
		e.cancelQR()
		e.cancelQR = nil
	}
	e.mu.Unlock()
	if client != nil {
		client.RemoveEventHandlers()
		client.Disconnect()
	}
}

// lifetime is the context of the engine's I/O that no request carries: whatsmeow's event handlers
// reading from the service (a group's record, a contact's id) or writing the auth state. stop
// cancels it, so such a handler gives up when the engine stops; start makes a new one.
func (e *Engine) lifetime() context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.life == nil {
		e.life, e.endLife = context.WithCancel(context.Background())
	}
	return e.life
}

// Shutdown is stdin's end: disconnect, nothing more.
func (e *Engine) Shutdown() { e.stop() }

func (e *Engine) logout(ctx context.Context) error {
	e.mu.Lock()
	client := e.client
	e.mu.Unlock()
	if client != nil && client.IsLoggedIn() {
		if err := client.Logout(ctx); err != nil {
			e.log.Warn("logout on the server failed; forgetting the device anyway", "err", err.Error())
		}
	}
	e.stop()
	if err := e.kv.Clear(ctx); err != nil {
		return err
	}
	e.host.SetMe(nil)
	return nil
}

func (e *Engine) qr(context.Context) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.qrCode == "" {
		return nil, commandError(hostapi.WrongStatus, "no QR code: the session is not waiting for a scan")
	}
	return e.qrCode, nil
}

func (e *Engine) requireClient() (*whatsmeow.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client == nil {
		return nil, commandError(hostapi.WrongStatus, "the engine is not started")
	}
	return e.client, nil
}

func (e *Engine) requestCode(ctx context.Context, p rpcschema.RequestCodeRequest) (any, error) {
	phone, _ := p.PhoneNumber.(string) // protocol normalizes it, so its schema has no type
	if phone == "" {
		return nil, commandError(hostapi.Invalid, "requestCode needs phoneNumber")
	}
	if p.Method != nil && *p.Method != "" {
		return nil, &CommandError{Code: hostapi.NotSupported, Message: fmt.Sprintf("GOWS links a device by a code typed on the phone; registering a number by %s is not supported by GOWS", *p.Method), Details: map[string]any{"method": *p.Method}}
	}
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	code, err := client.PairPhone(ctx, strings.TrimPrefix(phone, "+"), true, whatsmeow.PairClientChrome, "Chrome (Linux)")
	if err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not ask for a pairing code: %v", err)
	}
	return map[string]string{"code": code}, nil
}

func (e *Engine) rejectCall(ctx context.Context, p rpcschema.RejectCallRequest) (any, error) {
	if p.ID == "" || p.From == "" {
		return nil, commandError(hostapi.Invalid, "rejectCall needs id and from")
	}
	client, err := e.requireClient()
	if err != nil {
		return nil, err
	}
	ring, ringing := e.calls.end(p.ID)
	creator := ring.creator
	if !ringing {
		if creator, err = libraryJID(p.From); err != nil {
			return nil, commandError(hostapi.Invalid, "from: %v", err)
		}
	}
	if err := client.RejectCall(ctx, creator, p.ID); err != nil {
		return nil, commandError(hostapi.EngineError, "GOWS could not decline the call %s: %v", p.ID, err)
	}
	// This device declined it (the server sends nothing back): call.rejected with the ring's fields.
	if ringing {
		payload := map[string]any{}
		for k, v := range ring.payload {
			payload[k] = v
		}
		data := map[string]any{}
		if d, ok := ring.payload["_data"].(map[string]any); ok {
			for k, v := range d {
				data[k] = v
			}
		}
		data["status"] = "reject"
		payload["_data"] = data
		payload["timestamp"] = unixSeconds(time.Now())
		e.emit("call.rejected", payload)
	}
	return nil, nil
}

// --- events ---

func (e *Engine) handleEvent(raw any) {
	switch evt := raw.(type) {
	case *events.Connected:
		e.mu.Lock()
		e.qrCode = ""
		e.working = true
		e.mu.Unlock()
		e.announceMe()
		// Right after pairing the name comes with the first app state sync: WORKING waits for it a
		// moment, so that its session.status names the account (as NOWEB does).
		if me := e.me(); me != nil && me["pushName"] == "" {
			e.mu.Lock()
			e.workingTimer = time.AfterFunc(pushNameWait, e.announceWorking)
			e.mu.Unlock()
		} else {
			e.announceWorking()
		}
	case *events.PushNameSetting, *events.AppStateSyncComplete:
		// A full sync sets the name without a PushNameSetting event.
		e.announceMe()
		if me := e.me(); me != nil && me["pushName"] != "" {
			e.announceWorking()
		}
	case *events.PairSuccess:
		e.log.Info("paired", "jid", evt.ID.String(), "lid", evt.LID.String())
	case *events.PairError:
		e.log.Warn("pairing failed", "err", fmt.Sprint(evt.Error))
	case *events.LoggedOut:
		e.log.Warn("logged out by the server", "reason", evt.Reason.String())
		e.host.SetMe(nil)
		e.setStatus("FAILED", "the server ended the connection for good (logged out: "+evt.Reason.String()+")")
	case *events.StreamReplaced:
		e.setStatus("FAILED", "the server ended the connection for good (another client connected with this device)")
	case *events.TemporaryBan:
		e.setStatus("FAILED", "the account is banned for now: "+evt.String())
	case *events.ClientOutdated:
		// The same version would be refused again: a reconnect whatsmeow started as the socket
		// closed (racing the failure it had not read yet) is ended too.
		if client := e.client0(); client != nil {
			go client.Disconnect()
		}
		e.setStatus("FAILED", clientOutdatedReason(presentedAppVersion()))
	case *events.KeepAliveTimeout:
		e.keepAliveFailed(evt)
	case *events.Disconnected:
		e.mu.Lock()
		working := e.status == "WORKING" && !e.stopped
		e.working = false
		e.mu.Unlock()
		if working {
			e.setStatus("STARTING", "")
		}
	case *events.Message:
		e.message(evt)
	case *events.Receipt:
		e.receipt(evt)
	case *events.CallOffer, *events.CallAccept, *events.CallReject, *events.CallTerminate:
		e.callEvent(raw)
	case *events.Presence, *events.ChatPresence:
		e.presenceEvent(raw)
	case *events.Archive:
		if !evt.FromFullSync { // the state before pairing is not news (as before fullSyncEvents)
			e.archived(evt)
		}
	case *events.DeleteChat:
		e.chatDeleted(evt)
	case *events.LabelEdit:
		e.labelEdited(evt)
	case *events.LabelAssociationChat:
		e.chatLabelled(evt)
	case *events.JoinedGroup:
		e.groupJoined(evt)
	case *events.GroupInfo:
		e.groupChanged(evt)
	case *events.HistorySync:
		e.historySynced(evt)
	}
}

func (e *Engine) client0() *whatsmeow.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.client
}

// account is the paired account as the interface names it, nil before pairing.
func (e *Engine) account() *hostapi.Me {
	client := e.client0()
	if client == nil || client.Store.ID == nil {
		return nil
	}
	// The name from the store's copy: whatsmeow writes the device's own field while it applies app state.
	return &hostapi.Me{ID: client.Store.ID.User + "@c.us", PushName: e.store.PushName()}
}

// me is the account as records carry it (`me` of an event), nil before pairing.
func (e *Engine) me() map[string]any {
	account := e.account()
	if account == nil {
		return nil
	}
	return map[string]any{"id": account.ID, "pushName": account.PushName}
}

func (e *Engine) announceMe() {
	if me := e.account(); me != nil {
		e.host.SetMe(me)
	}
}
